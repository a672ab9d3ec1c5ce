/**
 * The session Durable Object: one instance per session id (`idFromName(sessionId)`), hosting a
 * runtime-agnostic `Session`. It is the only place that knows about Durable Objects; the
 * protocol lives in `shared/`.
 *
 * Persisted (SQLite-backed storage, key-value API):
 *   "session"      → SessionRecord: id, transport, createdAt, negotiated protocolVersion,
 *                    clientInfo, clientCapabilities, logLevel. Written on create, initialize and
 *                    logging/setLevel only: never per request.
 *   "data:<key>"   → values tool handlers store through `ctx.storage` (e.g. the note pad).
 *   alarm          → the idle-expiry check, set whenever the stream closes.
 * In memory only (a cache, rebuilt on demand): the open stream, the outbound queue, running
 * handlers, the time of last activity.
 *
 * Lifecycle. Created by `GET /sse`. While its stream is open the object is pinned in memory.
 * When the stream closes, running handlers are aborted and the queue released; the record stays
 * for SESSION_IDLE_TTL_MS so the session can be reopened (`GET /sse?sessionId=`), then the alarm
 * deletes everything. After eviction or a deploy the next call constructs a fresh instance, which
 * reloads the record in `blockConcurrencyWhile` before serving anything. An alarm that fires
 * twice, or after the session ended, finds nothing to do.
 *
 * Cost model (Workers Paid, as published in 2026): a Durable Object is billed for wall-clock
 * duration while it is in memory, at 128 MB × duration ($12.50 per million GB-s beyond 400,000
 * GB-s included), plus $0.15 per million requests beyond one million. An open SSE stream keeps
 * the object in memory, so one idle connected client costs 0.125 GB × 86,400 s ≈ 10,800 GB-s a
 * day, about $0.135 a day or $4 a month per always-connected session. The keepalive comments are
 * writes on an existing stream, not requests. The alternative (closing streams and letting
 * clients poll) trades that for request charges and latency; legacy HTTP+SSE clients cannot
 * poll, so for them the resident object is the price of the transport. Storage here is a few
 * hundred bytes per session, deleted at idle expiry.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../shared/config/readConfig.ts";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { McpError } from "../shared/errors/McpError.ts";
import { errorResponse, toMcpError } from "../shared/http/errorResponse.ts";
import type { JsonRpcMessage } from "../shared/jsonrpc/messages.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { McpServer } from "../shared/server/McpServer.ts";
import { type ReceiveOutcome, Session, type SessionDeps } from "../shared/session/Session.ts";
import type { TransportKind } from "../shared/session/SessionRecord.ts";
import type { Env } from "../worker/Env.ts";
import { durableStorage } from "./durableStorage.ts";
import { durableBroadcaster } from "./WatchObject.ts";

export interface OpenOptions {
  /** Create the session (GET /sse without an id) rather than reopen an existing one. */
  create: boolean;
  transport: TransportKind;
  /** Raw SSE text sent as the stream's first bytes (the legacy `endpoint` event). */
  first?: string;
}

/**
 * Subclass it once per server definition and export the subclass under the class name
 * wrangler.toml binds:
 *
 * @example
 * export class McpSession extends SessionObject {
 *   constructor(ctx: DurableObjectState, env: Env) { super(ctx, env, server); }
 * }
 */
export class SessionObject extends DurableObject<Env> {
  #session: Session | undefined;
  #loadError: unknown;
  readonly #deps: SessionDeps;

  constructor(ctx: DurableObjectState, env: Env, server: McpServer) {
    super(ctx, env);
    const config = readConfig(env);
    this.#deps = {
      server,
      storage: durableStorage(ctx.storage),
      config,
      logger: new Logger(config.logLevel),
      env,
      broadcast: env.MCP_WATCH ? durableBroadcaster(env.MCP_WATCH) : undefined,
      scheduleWakeup: (atMs) => ctx.storage.setAlarm(atMs),
    };
    // A throw inside blockConcurrencyWhile resets the object; keep the error and report it on use.
    void ctx.blockConcurrencyWhile(async () => {
      try {
        this.#session = await Session.load(this.#deps);
      } catch (error) {
        this.#loadError = error;
      }
    });
  }

  /** Opens (or creates and opens) the session's SSE stream. */
  open(sessionId: string, options: OpenOptions): Promise<Response> {
    return this.#answer(async () => {
      const session = options.create ? await this.#create(sessionId, options.transport) : this.#require(sessionId);
      return session.attach(options.first);
    });
  }

  /** Delivers one POST's validated messages. */
  async receive(sessionId: string, messages: JsonRpcMessage[]): Promise<ReceiveOutcome> {
    try {
      this.#throwIfLoadFailed();
      return await this.#require(sessionId).receive(messages);
    } catch (error) {
      const known = toMcpError(error, this.#deps.logger);
      return { status: known.status, headers: known.headers, body: JSON.stringify({ jsonrpc: "2.0", id: null, error: known.toJsonRpc() }) };
    }
  }

  /**
   * A Streamable HTTP POST. With `create`, the session is created first (the POST carries
   * `initialize`) and the response names it in `Mcp-Session-Id`.
   */
  post(sessionId: string, messages: JsonRpcMessage[], create: boolean): Promise<Response> {
    return this.#answer(async () =>
      create
        ? (await this.#create(sessionId, "streamable")).post(messages, { "mcp-session-id": sessionId })
        : this.#require(sessionId).post(messages),
    );
  }

  /** A Streamable HTTP GET: the standalone stream, or a resumed one after `Last-Event-ID`. */
  listen(sessionId: string, lastEventId: string | null): Promise<Response> {
    return this.#answer(() => this.#require(sessionId).listen(lastEventId));
  }

  /** A Streamable HTTP DELETE: the client ends the session; its storage goes with it. */
  terminate(sessionId: string): Promise<Response> {
    return this.#answer(async () => {
      await this.#require(sessionId).end("client-deleted");
      this.#session = undefined;
      return new Response(null, { status: 204 });
    });
  }

  /** Live figures for tests and the benchmark: queue depth, handlers running, stream state. */
  async stats(): Promise<Session["queueStats"] | undefined> {
    return this.#session?.queueStats;
  }

  override async alarm(): Promise<void> {
    if (!this.#session) return;
    if ((await this.#session.wakeup()) === "ended") this.#session = undefined;
  }

  /** Runs one RPC that answers with a Response; any failure becomes its JSON-RPC error response. */
  async #answer(work: () => Response | Promise<Response>): Promise<Response> {
    try {
      this.#throwIfLoadFailed();
      return await work();
    } catch (error) {
      return errorResponse(error, null, this.#deps.logger);
    }
  }

  async #create(sessionId: string, transport: TransportKind): Promise<Session> {
    if (this.#session) throw new McpError(409, ErrorCode.InvalidRequest, "Session already exists");
    this.#session = await Session.create(sessionId, transport, this.#deps);
    return this.#session;
  }

  #require(sessionId: string): Session {
    const session = this.#session;
    if (!session || session.ended || session.record.id !== sessionId) {
      throw new McpError(404, ErrorCode.InvalidRequest, "Unknown session: it never existed, or it ended; start a new one");
    }
    return session;
  }

  #throwIfLoadFailed(): void {
    if (this.#loadError !== undefined) throw this.#loadError;
  }
}
