/**
 * The session Durable Object: one instance per session id (`idFromName(sessionId)`), hosting a
 * runtime-agnostic `SessionEndpoint` (and through it a `Session`). It is the only place that
 * knows about Durable Objects; the protocol and the create/require rules live in `shared/`.
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
import type { JsonRpcMessage } from "../shared/jsonrpc/messages.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { McpServer } from "../shared/server/McpServer.ts";
import { type OpenOptions, type ReceiveOutcome, SessionEndpoint } from "../shared/session/SessionEndpoint.ts";
import type { Env } from "../worker/Env.ts";
import { durableStorage } from "./durableStorage.ts";
import { durableBroadcaster } from "./WatchObject.ts";

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
  readonly #endpoint: SessionEndpoint;

  constructor(ctx: DurableObjectState, env: Env, server: McpServer) {
    super(ctx, env);
    const config = readConfig(env);
    this.#endpoint = new SessionEndpoint({
      server,
      storage: durableStorage(ctx.storage),
      config,
      logger: new Logger(config.logLevel),
      env,
      broadcast: env.MCP_WATCH ? durableBroadcaster(env.MCP_WATCH) : undefined,
      scheduleWakeup: (atMs) => ctx.storage.setAlarm(atMs),
    });
    // Nothing is served before the stored session is read back (after eviction or a deploy).
    void ctx.blockConcurrencyWhile(() => this.#endpoint.load());
  }

  /** Opens (or creates and opens) the session's SSE stream. */
  open(sessionId: string, options: OpenOptions): Promise<Response> {
    return this.#endpoint.open(sessionId, options);
  }

  /** Delivers one POST's validated messages. */
  receive(sessionId: string, messages: JsonRpcMessage[]): Promise<ReceiveOutcome> {
    return this.#endpoint.receive(sessionId, messages);
  }

  /** A Streamable HTTP POST; with `create`, the session is created first. */
  post(sessionId: string, messages: JsonRpcMessage[], create: boolean): Promise<Response> {
    return this.#endpoint.post(sessionId, messages, create);
  }

  /** A Streamable HTTP GET: the standalone stream, or a resumed one after `Last-Event-ID`. */
  listen(sessionId: string, lastEventId: string | null): Promise<Response> {
    return this.#endpoint.listen(sessionId, lastEventId);
  }

  /** A Streamable HTTP DELETE. */
  terminate(sessionId: string): Promise<Response> {
    return this.#endpoint.terminate(sessionId);
  }

  async stats(): Promise<ReturnType<SessionEndpoint["stats"]>> {
    return this.#endpoint.stats();
  }

  override async alarm(): Promise<void> {
    await this.#endpoint.wakeup();
  }
}
