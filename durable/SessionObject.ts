/**
 * The session Durable Object: one instance per session id (`idFromName(sessionId)`), hosting a
 * runtime-agnostic `SessionHost`; the protocol and the session rules live in `shared/`. The Worker
 * sends every session request here as a `SessionOperation` over RPC (`apply`), except the
 * long-lived streams, which it relays over a WebSocket this object accepts for hibernation
 * (`relayProtocol.ts`).
 *
 * Persisted (key-value API of SQLite-backed storage), all of it deleted when the session ends:
 *   "session"           → SessionRecord: transport, deadline, negotiated version, client info and
 *                         capabilities, log level, subscriptions, switched definitions. Written on
 *                         create, by the methods that change it, and at most once per half TTL
 *                         when activity pushes the deadline; never per request.
 *   "data:<key>"        → what handlers store through `ctx.storage`.
 *   "ev:<stream>:<seq>" → each Streamable HTTP SSE event, stored before it is written, for
 *                         `Last-Event-ID` (bounded by MAX_STORED_EVENTS / MAX_STORED_BYTES).
 *   "stream:standalone" → the standalone GET stream's id, so a reload continues it.
 *   "post:<stream>"     → the request ids of a streamed POST still running (`UnfinishedPosts`).
 *   alarm               → the stored deadline.
 * Each relay socket's attachment (kept by the runtime through hibernation) holds its stream and
 * the bytes sent and acknowledged. Only a cache, rebuilt on demand: the open streams, the
 * outbound queue, running handlers.
 *
 * Lifecycle: created by `GET /sse` or a Streamable HTTP `initialize`. At the deadline the alarm
 * pushes on a session with a client connected or a request running, and ends any other; `DELETE`
 * ends it too. Ending refuses further writes, then deletes every key and the alarm. A dropped
 * legacy stream aborts its requests; a Streamable one's events wait in storage. A fresh
 * instance (after eviction, a deploy or hibernation) reloads the record and reattaches its
 * sockets in `blockConcurrencyWhile` before serving; a failed load is retried by the next call;
 * an alarm that fires twice or after the end finds nothing to do. A client waiting on its stream
 * leaves nothing pending here (the Worker holds the stream and its keepalives), so the object
 * hibernates; only frames waiting for a slow client's credit keep it resident.
 */
import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { McpError } from "../shared/errors/McpError.ts";
import { type Answer, toResponse } from "../shared/http/Answer.ts";
import { errorResponse } from "../shared/http/errorResponse.ts";
import type { SessionOperation } from "../shared/host/SessionOperation.ts";
import { type Relayed, SessionHost } from "../shared/host/SessionHost.ts";
import type { Logger } from "../shared/log/Logger.ts";
import type { ServerEnv } from "../shared/definition/RequestContext.ts";
import type { CompiledServer } from "../shared/server/CompiledServer.ts";
import { durableStorage } from "./durableStorage.ts";
import { closeBack } from "./sockets.ts";
import { RelayedStream, type RelayState } from "./RelayedStream.ts";
import { OPERATION_HEADER, readAck } from "./relayProtocol.ts";
import { workersRuntime } from "./workersRuntime.ts";

/** What the session object reads from its environment. */
export type SessionObjectEnv = ServerEnv;

/**
 * One server definition's session class. `createWorker` makes the subclass wrangler.toml binds
 * (`McpSession`); you rarely extend this yourself.
 */
export class SessionObject extends DurableObject<SessionObjectEnv> {
  readonly #host: SessionHost;
  readonly #log: Logger;
  /** The relayed streams this instance sends, by socket; rebuilt from the sockets' attachments after a wake. */
  readonly #relays = new Map<WebSocket, RelayedStream>();

  constructor(ctx: DurableObjectState, env: SessionObjectEnv, definition: CompiledServer) {
    super(ctx, env);
    // What the definition's capabilities bring here (`watch()`: fan-out across isolates, else none from sessions; `homes()`: homes and fair shares).
    const runtime = workersRuntime(definition, env);
    const { logger } = runtime;
    this.#log = logger;
    this.#host = new SessionHost({
      ...runtime,
      storage: durableStorage(ctx.storage),
      scheduleWakeup: (atMs) => ctx.storage.setAlarm(atMs),
      // Checked while loading, before the sockets are reattached: a hibernated client is still connected.
      relaying: () => ctx.getWebSockets().length > 0,
    });
    // Nothing is served before the stored session is read back (after eviction, a deploy or a
    // hibernation) and the relayed streams still connected are reading again. A failure here is
    // not thrown (that would reset the object): the next call tries again.
    void ctx.blockConcurrencyWhile(() =>
      this.#host
        .ready()
        .then(() => this.#reattach())
        .catch((error: unknown) => logger.error("session.load-failed", { message: String(error) })),
    );
  }

  /**
   * A relayed stream (`relayProtocol.ts`): the Worker's `GET /sse` or `GET /mcp`, upgraded to a
   * WebSocket this object accepts for hibernation. Anything else is refused: only the Worker
   * reaches this object, and it sends nothing else here.
   */
  override async fetch(request: Request): Promise<Response> {
    const operation = relayedOperation(request);
    if (!operation) return errorResponse(new McpError(400, ErrorCode.InvalidRequest, "A session object takes relayed streams only, as WebSocket upgrades carrying their operation"));
    const answer = await this.#host.apply({ ...operation, relayed: true });
    if (!(answer instanceof Response) || answer.status !== 200 || !answer.body) return toResponse(answer);
    const relayed: Relayed = operation.kind === "open" ? { kind: "legacy" } : { kind: "stream", streamId: this.#host.streamOf(operation)! };
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    this.#relay(server, answer.body, { relayed, sent: 0, acked: 0 });
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const total = readAck(message);
    if (total !== undefined) this.#relays.get(socket)?.ack(total);
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    this.#drop(socket);
    closeBack(socket, code, reason);
  }

  override async webSocketError(socket: WebSocket, error: unknown): Promise<void> {
    this.#log.warn("relay.socket-error", { message: String(error) });
    this.#drop(socket);
  }

  #relay(socket: WebSocket, body: ReadableStream<Uint8Array>, state: RelayState): void {
    socket.serializeAttachment(state);
    this.#relays.set(socket, new RelayedStream(socket, body, state, this.#log));
  }

  #drop(socket: WebSocket): void {
    this.#relays.get(socket)?.clientLeft();
    this.#relays.delete(socket);
  }

  /** After a wake: every socket still connected reads its stream again, or is closed if its session is gone. */
  async #reattach(): Promise<void> {
    for (const socket of this.ctx.getWebSockets()) {
      if (this.#relays.has(socket)) continue;
      const state = socket.deserializeAttachment() as RelayState | null;
      const body = state ? await this.#host.reattach(state.relayed) : undefined;
      if (state && body) this.#relay(socket, body, state);
      else socket.close(1000, "session-ended");
    }
  }

  /** The one entry: a session request, as the Worker's routes built it; a JSON answer comes back as plain data. */
  apply(operation: SessionOperation): Promise<Answer> {
    return this.#host.apply(operation);
  }

  /** Live figures for tests and the benchmark: queue depth, handlers running, stream state. */
  async stats(): Promise<SessionHost["stats"]> {
    return this.#host.stats;
  }

  override async alarm(): Promise<void> {
    await this.#host.wakeup();
  }
}

/** The `open` or `stream` operation a relay upgrade carries; undefined for anything else. */
function relayedOperation(request: Request): Extract<SessionOperation, { kind: "open" | "stream" }> | undefined {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return undefined;
  try {
    const operation = JSON.parse(decodeURIComponent(request.headers.get(OPERATION_HEADER) ?? "")) as SessionOperation;
    return operation.kind === "open" || operation.kind === "stream" ? operation : undefined;
  } catch {
    return undefined;
  }
}
