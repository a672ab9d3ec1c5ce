/**
 * The session Durable Object: one instance per session id (`idFromName(sessionId)`), hosting a
 * runtime-agnostic `SessionHost` (and through it a `Session`). It is the only place that knows
 * about Durable Objects; the protocol and the create/require rules live in `shared/`. Its one
 * entry is `apply(operation)`: the Worker sends every session request as a `SessionOperation`
 * over RPC (the body already parsed), and gets the `Response` back.
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
 * Cost model (Workers Paid, as published in 2026): a Durable Object is billed for wall-clock
 * duration while it is in memory, at 128 MB × duration ($12.50 per million GB-s beyond 400,000
 * GB-s included), plus $0.15 per million requests beyond one million. An open SSE stream keeps
 * the object in memory, so one idle connected client costs 0.125 GB × 86,400 s ≈ 10,800 GB-s a
 * day, about $0.135 a day or $4 a month per always-connected session. The keepalive comments are
 * writes on an existing stream, not requests. Storage is a few hundred bytes per session plus its
 * stored events, deleted at idle expiry.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../shared/config/readConfig.ts";
import type { Answer } from "../shared/http/Answer.ts";
import type { SessionOperation } from "../shared/host/SessionOperation.ts";
import { SessionHost } from "../shared/host/SessionHost.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { ServerEnv } from "../shared/server/RequestContext.ts";
import type { ServerDefinition } from "../shared/server/ServerDefinition.ts";
import { durableStorage } from "./durableStorage.ts";
import { durableBroadcaster, type WatchObject } from "./WatchObject.ts";

/** What the session object reads from its environment. */
export type SessionObjectEnv = ServerEnv & {
  /** Change fan-out across isolates (2026-07-28 `subscriptions/listen`); without it, none from sessions. */
  MCP_WATCH?: DurableObjectNamespace<WatchObject>;
};

/**
 * One server definition's session class. `createWorker` makes the subclass wrangler.toml binds
 * (`McpSession`); you rarely extend this yourself.
 */
export class SessionObject extends DurableObject<SessionObjectEnv> {
  readonly #host: SessionHost;

  constructor(ctx: DurableObjectState, env: SessionObjectEnv, definition: ServerDefinition) {
    super(ctx, env);
    const config = readConfig(env);
    const logger = new Logger(config.logLevel);
    this.#host = new SessionHost({
      server: definition,
      storage: durableStorage(ctx.storage),
      config,
      logger,
      env,
      broadcast: env.MCP_WATCH ? durableBroadcaster(env.MCP_WATCH) : undefined,
      scheduleWakeup: (atMs) => ctx.storage.setAlarm(atMs),
    });
    // Nothing is served before the stored session is read back (after eviction or a deploy). A
    // failure here is not thrown (that would reset the object): the next call tries again.
    void ctx.blockConcurrencyWhile(() => this.#host.ready().catch((error: unknown) => logger.error("session.load-failed", { message: String(error) })));
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
