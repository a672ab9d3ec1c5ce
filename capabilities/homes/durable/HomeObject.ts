/**
 * The home Durable Object: one instance per user (`user:<owner digest>`) and one per
 * handle (`handle:<id>`), found by `idFromName` — never by a value the client chose. It hosts a
 * runtime-agnostic `HomeHost` and is the only place that knows about Durable Objects.
 *
 * A request to a definition with a home of its own comes here as one RPC call, `run`, from
 * wherever the request is served: the Worker (2026-07-28), a session's object (2025, HTTP+SSE) or
 * a task's object. The handler runs here, so `ctx.storage` is this object's own storage — local,
 * transactional, one object per user serializing its requests — and `ctx.storage.sql` its SQLite
 * database. What the handler asks of its request (progress, logs, asks to the client) goes back
 * through the `Peer` function the call carries (`homePeer.ts`); the request's cancellation comes
 * as `abort(callId)`, and a run whose caller vanished is ended by its own deadline.
 *
 * The same class keeps each client's fair shares (`acquireShare`): a signed-in user's in their
 * home, a client without a token in one per address (`client:<address digest>`), which holds
 * nothing else and is deleted when its last holding lapses. A handle's home takes its share there
 * at its first write and gives it back when it is erased (through `MCP_HOME`, this namespace).
 *
 * Persisted: the home's record and its handlers' keys (`HomeRecord.ts`), any SQL tables, and the
 * client's holdings.
 * Lifecycle: a home exists from its first write; its alarm ends it after HOME_RETENTION_MS
 * unused (every key, every table, the alarm); between calls nothing holds it in memory, so it is
 * evicted and its alarm brings it back.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../../../shared/config/readConfig.ts";
import type { Result } from "../../../shared/definition/Method.ts";
import type { ServerEnv } from "../../../shared/definition/RequestContext.ts";
import { contextOf, failureSent, type Peer, type RemoteCall } from "./homePeer.ts";
import { HomeHost } from "../HomeHost.ts";
import type { HomeAddress } from "../../../shared/home/Homes.ts";
import { Logger } from "../../../shared/log/Logger.ts";
import type { CompiledServer } from "../../../shared/server/CompiledServer.ts";
import { boundedSql } from "../../../durable/boundedSql.ts";
import { atomicStorage } from "../../../durable/durableStorage.ts";
import { type Settled, settle, settleAll } from "../../../durable/settled.ts";
import { workersPart } from "../../../durable/WorkersPart.ts";
import { type ShareLimit, shareLimits } from "../../../shared/shares/ShareLimits.ts";
import type { ShareClaim, ShareResource } from "../../../shared/shares/Shares.ts";

/** What the home object reads from its environment: the limits, and handlers' `ctx.env`. */
export type HomeObjectEnv = ServerEnv;

/** Past the caller's own deadline, how long a run goes on before this object ends it: the caller is gone. */
const ORPHAN_GRACE_MS = 5_000;

/**
 * One server definition's home class. `createWorker` makes the subclass wrangler.toml binds
 * (`McpHome`, as `MCP_HOME`); you rarely extend this yourself.
 */
export class HomeObject extends DurableObject<HomeObjectEnv> {
  readonly #host: HomeHost;
  /** How long a plain call's run and a task's may last here, grace included. */
  readonly #deadlineMs: { call: number; task: number };
  /** The runs under way here, by call id: what `abort` reaches. */
  readonly #running = new Map<string, AbortController>();
  readonly #limits: Record<ShareResource, ShareLimit>;

  constructor(ctx: DurableObjectState, env: HomeObjectEnv, definition: CompiledServer) {
    super(ctx, env);
    const config = readConfig(env);
    this.#deadlineMs = { call: config.handlerTimeoutMs + ORPHAN_GRACE_MS, task: config.taskTimeoutMs + ORPHAN_GRACE_MS };
    this.#host = new HomeHost({
      server: definition,
      config,
      logger: new Logger(config.logLevel),
      store: atomicStorage(ctx.storage),
      schedule: (at) => (at === undefined ? ctx.storage.deleteAlarm() : ctx.storage.setAlarm(at)),
      sql: (wrote) => boundedSql(ctx.storage, config.maxHomeBytes, wrote),
      scheduled: () => ctx.storage.getAlarm(),
      // The fair shares in the home objects (`homes()` brings them), where a handle takes its client's share.
      shares: workersPart(definition).shares?.(env),
    });
    this.#limits = shareLimits(config);
  }

  /** Runs one request's method here (see the module header); its `McpError` comes back settled. */
  async run(address: HomeAddress, call: RemoteCall, peer: Peer): Promise<Settled<Result>> {
    const controller = new AbortController();
    this.#running.set(call.callId, controller);
    // The caller aborts at its own deadline; this one ends a run whose caller is gone without a word.
    const deadline = setTimeout(() => controller.abort(new Error("The request's caller went away")), call.taskId === undefined ? this.#deadlineMs.call : this.#deadlineMs.task);
    try {
      const ctx = contextOf(call, peer, this.env, controller.signal);
      const settled = await settleAll(this.#host.run(address, call, ctx));
      await failureSent(ctx);
      return settled;
    } finally {
      clearTimeout(deadline);
      this.#running.delete(call.callId);
    }
  }

  /** The request was cancelled, or passed its deadline: its handler's signal is aborted. */
  abort(callId: string): void {
    this.#running.get(callId)?.abort(new Error("The request was cancelled"));
  }

  /** One fair share of this home's client (`Shares.acquire`): its refusal comes back settled. */
  async acquireShare(resource: ShareResource, id: string, claim: ShareClaim): Promise<Settled<null>> {
    const taken = await this.#host.acquireShare(resource, id, claim, this.#limits[resource]);
    return taken.ok ? { ok: true, value: null } : settle(Promise.reject(taken.error));
  }

  async releaseShare(resource: ShareResource, id: string): Promise<void> {
    await this.#host.releaseShare(resource, id);
  }

  /**
   * Deletes everything this home holds (a user's data, on request), and answers what its client
   * held live — sessions, tasks and handles — for the caller to end them too.
   */
  async erase(): Promise<Record<ShareResource, string[]>> {
    const held = await this.#host.holdings();
    await this.#host.erase("erased on request");
    return held;
  }

  /** Retention: erases the home if unused that long, else re-arms (`HomeHost.wake`). */
  override async alarm(): Promise<void> {
    await this.#host.wake();
  }
}
