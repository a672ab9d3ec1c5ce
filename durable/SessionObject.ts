/**
 * The session Durable Object: one instance per session id (`idFromName(sessionId)`), hosting a
 * runtime-agnostic `SessionHost` (and through it a `Session`). It is the only place that knows
 * about Durable Objects; the protocol and the create/require rules live in `shared/`. Its entry
 * is `apply(operation)`: the Worker sends every session request as a `SessionOperation` over RPC
 * (the body already parsed), and gets the answer back — except the long-lived streams (`open`,
 * `stream`), which the Worker relays: it opens a WebSocket to `fetch`, the object accepts it for
 * hibernation, and sends the stream's frames on it (`relayProtocol.ts`, `RelayedStream.ts`).
 *
 * Persisted (SQLite-backed storage, key-value API):
 *   "session"             → SessionRecord: id, transport kind, createdAt, expiresAt (the stored
 *                           deadline), negotiated protocolVersion, clientInfo, clientCapabilities,
 *                           logLevel, resource subscriptions, switched definitions. Written on
 *                           create, by the methods that change it, and when activity pushes the
 *                           deadline (at most once per half TTL): never per request.
 *   "data:<key>"          → values tool handlers store through `ctx.storage` (e.g. the note pad).
 *   "ev:<stream>:<seq>"   → Streamable HTTP: each SSE event as sent, stored before it is written,
 *                           for `Last-Event-ID` resumption (bounded by MAX_STORED_EVENTS and
 *                           MAX_STORED_BYTES, oldest first). A POST answered with JSON stores nothing.
 *   "stream:standalone"   → the standalone GET stream's id, so a reload continues that stream.
 *   "post:<stream>"       → the request ids of a streamed POST still running; a reload answers the
 *                           ones left without a reply with -32603 (`UnfinishedPosts`).
 *   alarm                 → the stored deadline, armed when the session is created.
 * With each relay socket (its attachment, kept by the runtime through hibernation): which
 * stream it carries, and the bytes sent and acknowledged.
 * In memory only (a cache, rebuilt on demand): the open streams, the outbound queue, running
 * handlers.
 *
 * Lifecycle. Created by `GET /sse` or by a Streamable HTTP `initialize` (an initialize refused
 * with an error ends its session at once). The alarm fires at the stored deadline: a session
 * with a client connected or a request running is pushed on, otherwise it ends, and so does one
 * whose object wakes on a request after its deadline (an alarm missed). Ending — expiry or
 * `DELETE` — refuses further writes, then deletes every key and the alarm, so nothing is left.
 * A legacy stream that drops aborts its requests; a Streamable one does not (its events wait in
 * storage). After eviction or a deploy the next call constructs a fresh instance, which reloads
 * the record (and the event index) in `blockConcurrencyWhile` before serving anything; a load
 * that fails is tried again by the next call. An alarm that fires twice, or after the session
 * ended, finds nothing to do.
 *
 * Hibernation. A client waiting on its stream leaves nothing pending here: the Worker holds the
 * stream and sends the keepalives, the socket is the runtime's, and a handler's deadline timer
 * exists only while it runs. So the object hibernates; a request, an alarm or an acknowledgement
 * wakes a new instance, which reloads the session, then reads each socket's stream again from
 * its newest event (everything before it was sent before the object went idle). While frames
 * wait for a slow client's credit, a timer keeps the object resident (hibernating would drop
 * them). A deploy closes the sockets: legacy clients reopen, Streamable ones resume.
 *
 * Cost model (Workers Paid, as published in 2026): a Durable Object is billed for wall-clock
 * duration while it is in memory and not hibernated, at 128 MB × duration ($12.50 per million
 * GB-s beyond 400,000 GB-s included), plus $0.15 per million requests beyond one million
 * (incoming WebSocket messages count 20 to a request; outgoing ones are free). Before the relay
 * an idle connected client cost ≈ $4 a month in duration; now it costs none, plus an alarm per
 * TTL to push its deadline. Storage is a few hundred bytes per session plus its stored events,
 * all deleted when the session ends. Figures: `npm run bench:cost`.
 */
import { DurableObject, waitUntil } from "cloudflare:workers";
import { readConfig } from "../shared/config/readConfig.ts";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { McpError } from "../shared/errors/McpError.ts";
import { type Answer, toResponse } from "../shared/http/Answer.ts";
import { errorResponse } from "../shared/http/errorResponse.ts";
import type { SessionOperation } from "../shared/host/SessionOperation.ts";
import { type Relayed, SessionHost } from "../shared/host/SessionHost.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { ServerEnv } from "../shared/definition/RequestContext.ts";
import type { ServerDefinition } from "../shared/server/ServerDefinition.ts";
import { durableStorage } from "./durableStorage.ts";
import { closeBack } from "./sockets.ts";
import { RelayedStream, type RelayState } from "./RelayedStream.ts";
import { OPERATION_HEADER, readAck } from "./relayProtocol.ts";
import { workersPart } from "./WorkersPart.ts";

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

  constructor(ctx: DurableObjectState, env: SessionObjectEnv, definition: ServerDefinition) {
    super(ctx, env);
    const config = readConfig(env);
    const logger = new Logger(config.logLevel);
    // What the definition's capabilities bring here (`watch()`: fan-out across isolates, else none from sessions; `homes()`: homes and fair shares).
    const workers = workersPart(definition);
    this.#log = logger;
    this.#host = new SessionHost({
      server: definition,
      storage: durableStorage(ctx.storage),
      config,
      logger,
      env,
      broadcast: workers.broadcaster?.(env, config.maxQueueBytes),
      homes: workers.homes?.(env, definition),
      shares: workers.shares?.(env),
      telemetry: definition.telemetryFor(env, logger, waitUntil),
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
