/**
 * Tasks held in PostgreSQL, for Node (and self-hosted Deno) processes sharing one database: any
 * process can create a task, read it, update it, cancel it or run it, and a task whose process
 * died — killed, redeployed, restarted — is run again by another, or by the same one once it is
 * back. The same `TaskHost` runs each task as on Workers, in memory and on Deno KV, over a store
 * in PostgreSQL (`PgStorage.task`: its row in `mcp_tasks`, its state, call, answers and result in
 * `mcp_task_entries`; shared: progress stored, a status another process made final never written
 * over).
 *
 * Wakeups are leases on the task's row:
 * - `wake_at` is the task's one wakeup (its "alarm": a run due, its TTL).
 * - Every process polls every `POLL_MS` for rows due and not leased, and claims a batch of them in
 *   one statement (`FOR UPDATE SKIP LOCKED`): `lease_owner` is this process, `lease_until`
 *   `CLAIM_MS` ahead, so each wakeup is taken by one process. A run then holds its lease (and its
 *   wakeup) TASK_LEASE_MS ahead, renewed while it runs (`TaskHost`): if its process dies, the
 *   lease lapses, the wakeup is due, and another process starts the handler again (at least once,
 *   as on Workers). A wakeup that ends gives its lease back.
 * - A process creating a task, or resuming it with answers, claims its wakeup itself, at once.
 * - Every change a host makes is announced on the channel `mcp_tasks` (the task's id, after the
 *   write commits): a run elsewhere hears a cancellation and stops, and listeners
 *   (`subscriptions/listen` with `taskIds`) on any process read the task again.
 * - Tasks past their TTL are deleted by whichever process polls, in batches of `SWEEP_BATCH`,
 *   even those whose wakeup was lost, and so is a row with no TTL (a late write of a run to a
 *   task deleted meanwhile makes one again): a task that ends leaves no row.
 * - Times are the processes' clocks (the host's `createdAt`, leases, wakeups): they must agree to
 *   well within TASK_LEASE_MS, as any fleet's clocks kept by NTP do.
 *
 * Bounded as `LocalTasks` is, through the runtime's fair shares: MAX_TASKS and MAX_TASK_BYTES,
 * MAX_TASKS_PER_CLIENT and MAX_TASK_BYTES_PER_CLIENT (across the processes with `postgresStore`'s
 * `PgShares`, per process with a `LocalShares`); each task's values by
 * `MAX_TASK_VALUE_BYTES`; runs started per poll by `CLAIM_BATCH`.
 */
import { notification } from "../../../shared/jsonrpc/messages.ts";
import type { Sql } from "postgres";
import type { Result } from "../../../shared/definition/Method.ts";
import type { StoreRuntime } from "../../../shared/runtime/Store.ts";
import type { Tasks } from "../../../shared/tasks/Tasks.ts";
import type { TaskStart } from "../../../shared/tasks/TaskState.ts";
import { PgChannel, type Subscription } from "../../../postgres/PgChannel.ts";
import { PgStorage } from "../../../postgres/PgStorage.ts";
import { logId } from "../../../shared/log/logId.ts";
import { TaskHost } from "../TaskHost.ts";

/** The channel every process's task hosts announce changes on: the payload is a task id. */
export const TASK_CHANNEL = "mcp_tasks";
/** How often each process looks for wakeups that came due, and for tasks past their TTL. */
const POLL_MS = 500;
/** How long a claimed wakeup is this process's before its run renews it: well past the time a claim takes to start a run. */
const CLAIM_MS = 30_000;
/** The most wakeups one poll claims: a process catching up after a pause starts its runs a batch at a time. */
const CLAIM_BATCH = 32;
/** The most expired tasks one poll deletes. */
const SWEEP_BATCH = 100;

const encoder = new TextEncoder();

export interface PgTasksOptions {
  /** Who holds a lease, as recorded in `lease_owner`: default, a random id per `PgTasks`. */
  leaseOwner?: string;
}

export class PgTasks implements Tasks {
  readonly #sql: Sql;
  readonly #options: StoreRuntime;
  readonly #channel: PgChannel;
  readonly leaseOwner: string;
  /** The tasks whose wakeup (a run, or its end at the TTL) is under way in this process. */
  readonly #awake = new Map<string, TaskHost>();
  /** Listeners of this process, by task: told when the task was announced changed. */
  readonly #listeners = new Map<string, Set<() => void>>();
  #subscription: Promise<Subscription> | undefined;
  #poller: ReturnType<typeof setInterval> | undefined;
  #polling = false;
  #closed = false;

  /** `runtime.shares` counts the fair shares (across the processes, when kept in the database). The tables come from `migrate`. */
  constructor(sql: Sql, runtime: StoreRuntime, options: PgTasksOptions = {}) {
    this.#sql = sql;
    this.#options = runtime;
    this.#channel = new PgChannel(sql, TASK_CHANNEL);
    this.leaseOwner = options.leaseOwner ?? crypto.randomUUID();
  }

  /**
   * Listens for changes and starts looking for due wakeups (a restarted process picks up what is
   * due at once). Resolves once listening; rejects when the database cannot be reached.
   */
  async start(): Promise<void> {
    this.#closed = false;
    this.#subscription ??= this.#channel.subscribe(
      (taskId) => this.#heard(taskId),
      // What was announced while the connection was down was not heard: every task here is read again.
      () => {
        for (const taskId of new Set([...this.#awake.keys(), ...this.#listeners.keys()])) this.#heard(taskId);
      },
    );
    try {
      await this.#subscription;
    } catch (error) {
      // Not listening (the database unreachable): a later `start` tries again.
      this.#subscription = undefined;
      throw error;
    }
    // Closed while it started: nothing is left running.
    if (this.#closed) return;
    this.#poller ??= setInterval(() => void this.#poll(), POLL_MS);
    await this.#poll();
  }

  /**
   * Stops polling and listening, and aborts the runs under way here without giving back their
   * leases: they lapse, and another process runs those tasks again.
   */
  close(): void {
    this.#closed = true;
    clearInterval(this.#poller);
    this.#poller = undefined;
    for (const host of this.#awake.values()) host.stop();
    const subscription = this.#subscription;
    this.#subscription = undefined;
    void subscription?.then((s) => s.unsubscribe()).catch(() => {});
    for (const listeners of this.#listeners.values()) for (const listener of listeners) listener();
  }

  async create(start: TaskStart): Promise<Result> {
    // The row first, with its owner and a TTL, so that a task whose creation fails halfway is swept.
    const expiresAt = Date.now() + this.#options.config.taskTtlMs;
    await this.#sql`INSERT INTO mcp_tasks (id, owner, expires_at) VALUES (${start.taskId}, ${start.owner ?? null}, ${new Date(expiresAt)})`;
    let fields: Result;
    try {
      fields = await this.#host(start.taskId).create(start);
    } catch (error) {
      await this.#sql`DELETE FROM mcp_tasks WHERE id = ${start.taskId}`;
      throw error;
    }
    // The TTL as the host counts it (from its `createdAt`), to the millisecond.
    await this.#sql`UPDATE mcp_tasks SET expires_at = ${new Date(Date.parse(String(fields.createdAt)) + Number(fields.ttlMs))} WHERE id = ${start.taskId}`;
    // The first run is this process's: claimed now, not at the next poll of any process.
    void this.#claimOne(start.taskId);
    return fields;
  }

  async get(taskId: string, owner: string | undefined): Promise<Result | undefined> {
    return this.#host(taskId).get(owner);
  }

  async update(taskId: string, owner: string | undefined, responses: Record<string, unknown>): Promise<boolean> {
    const updated = await this.#host(taskId).update(owner, responses);
    // Answers that resume the task made its wakeup due: run here, at once.
    if (updated) void this.#claimOne(taskId);
    return updated;
  }

  async cancel(taskId: string, owner: string | undefined): Promise<boolean> {
    const cancelled = await this.#host(taskId).cancel(owner);
    // A run here hears it at once; one elsewhere through the channel.
    await this.#awake.get(taskId)?.refresh();
    return cancelled;
  }

  async watch(taskId: string, owner: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    // One pending change at most: a burst of announcements is one read, of the latest state.
    let changed = false;
    let wake: (() => void) | undefined;
    const listener = () => {
      changed = true;
      wake?.();
    };
    let listeners = this.#listeners.get(taskId);
    if (!listeners) this.#listeners.set(taskId, (listeners = new Set()));
    listeners.add(listener);
    const stop = () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(taskId) === listeners) this.#listeners.delete(taskId);
      wake?.();
    };
    // Listening before the first read: a change made meanwhile is heard.
    if (!(await this.get(taskId, owner).catch(() => undefined))) {
      stop();
      return undefined;
    }
    signal.addEventListener("abort", stop, { once: true });
    let last = "";
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          for (;;) {
            while (!changed && !signal.aborted && !this.#closed) await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            if (signal.aborted || this.#closed) return controller.close();
            changed = false;
            const task = await this.get(taskId, owner).catch(() => undefined);
            // Gone at its TTL (or erased): the listener ends.
            if (!task) {
              stop();
              return controller.close();
            }
            const line = JSON.stringify(notification("notifications/tasks", task));
            if (line === last) continue;
            last = line;
            return controller.enqueue(encoder.encode(`${line}\n`));
          }
        },
        cancel: stop,
      },
      { highWaterMark: 0 },
    );
  }

  /** Deletes every task of the principal with this digest, for every process (a user's data erased on request); resolves with how many. */
  async eraseOwnedBy(owner: string): Promise<number> {
    const rows = await this.#sql<{ id: string }[]>`SELECT id FROM mcp_tasks WHERE owner = ${owner}`;
    let erased = 0;
    for (const { id } of rows) {
      if (await this.#host(id).erase(owner)) erased++;
      await this.#awake.get(id)?.refresh();
    }
    return erased;
  }

  /**
   * A host for one operation on the task, or for its wakeup (`leased`: this process holds the
   * lease): its state is read from the database, not kept.
   */
  #host(taskId: string, leased = false): TaskHost {
    return new TaskHost({
      ...this.#options,
      store: PgStorage.task(this.#sql, taskId),
      shared: true,
      schedule: (at) => (leased ? this.#renew(taskId, at) : this.#schedule(taskId, at)),
      publish: () => this.#announce(taskId),
      gone: () => this.#announce(taskId),
    });
  }

  #announce(taskId: string): void {
    this.#channel.publish(taskId).catch((error) => this.#options.logger.warn("task.publish-failed", { message: String(error) }));
  }

  /** A change announced (by any process): runs here read the state again, listeners here are told. */
  #heard(taskId: string): void {
    const host = this.#awake.get(taskId);
    if (host) void host.refresh().catch(() => {});
    for (const listener of this.#listeners.get(taskId) ?? []) listener();
  }

  /** Sets (or clears) the task's one wakeup, leaving its lease as it is (a change made beside a run: answers, a cancellation). */
  async #schedule(taskId: string, at: number | undefined): Promise<void> {
    await this.#sql`UPDATE mcp_tasks SET wake_at = ${at === undefined ? null : new Date(at)} WHERE id = ${taskId}`;
  }

  /**
   * The wakeup under way here sets the next one, and its lease moves with it (a run renews it so).
   * A lease another process holds now (this one's lapsed: a pause longer than the lease) is not
   * taken back: the run here stops, and the other's stands.
   */
  async #renew(taskId: string, at: number | undefined): Promise<void> {
    const wakeAt = at === undefined ? null : new Date(at);
    const renewed = await this.#sql`UPDATE mcp_tasks SET wake_at = ${wakeAt}, lease_until = ${wakeAt} WHERE id = ${taskId} AND lease_owner = ${this.leaseOwner} RETURNING id`;
    if (renewed.length > 0) return;
    const host = this.#awake.get(taskId);
    if (!host) return;
    this.#options.logger.warn("task.lease-lost", { task: logId(taskId) });
    host.stop();
  }

  /** Deletes a batch of tasks past their TTL, then claims and wakes a batch of due ones. */
  async #poll(): Promise<void> {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    try {
      const now = new Date();
      // A task swept here was never woken at its TTL, so its client's fair share (`PgShares`' row in
      // the same database) goes in the same statement, rather than lapsing until the shares' sweep.
      const swept = await this.#sql<{ id: string }[]>`
        WITH swept AS (
          DELETE FROM mcp_tasks WHERE id IN (
            SELECT id FROM mcp_tasks WHERE expires_at <= ${now} OR expires_at IS NULL ORDER BY expires_at NULLS FIRST LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
          RETURNING id),
        shares AS (DELETE FROM mcp_shares WHERE resource = 'task' AND id IN (SELECT id FROM swept))
        SELECT id FROM swept`;
      for (const { id } of swept) this.#announce(id);
      const claimed = await this.#sql<{ id: string }[]>`
        UPDATE mcp_tasks SET lease_owner = ${this.leaseOwner}, lease_until = ${new Date(now.getTime() + CLAIM_MS)}
        WHERE id IN (
          SELECT id FROM mcp_tasks
          WHERE wake_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
          ORDER BY wake_at LIMIT ${CLAIM_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING id`;
      for (const { id } of claimed) void this.#wake(id);
    } catch (error) {
      this.#options.logger.warn("task.poll-failed", { message: String(error) });
    } finally {
      this.#polling = false;
    }
  }

  /** Claims one task's wakeup if it is due and no process holds it, then wakes it here. */
  async #claimOne(taskId: string): Promise<void> {
    if (this.#awake.has(taskId) || this.#closed) return;
    try {
      const now = new Date();
      const [won] = await this.#sql`
        UPDATE mcp_tasks SET lease_owner = ${this.leaseOwner}, lease_until = ${new Date(now.getTime() + CLAIM_MS)}
        WHERE id IN (
          SELECT id FROM mcp_tasks
          WHERE id = ${taskId} AND wake_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
          FOR UPDATE SKIP LOCKED)
        RETURNING id`;
      if (won) await this.#wake(taskId);
    } catch (error) {
      this.#options.logger.warn("task.claim-failed", { message: String(error) });
    }
  }

  /** Wakes a task whose lease this process holds, then gives the lease back (the wakeup it set stays). */
  async #wake(taskId: string): Promise<void> {
    if (this.#awake.has(taskId) || this.#closed) return;
    const host = this.#host(taskId, true);
    this.#awake.set(taskId, host);
    try {
      await host.wake();
    } finally {
      this.#awake.delete(taskId);
      // Stopped (the process is going away): the lease is left to lapse, and another process takes the task.
      if (!this.#closed) {
        await this.#sql`UPDATE mcp_tasks SET lease_owner = NULL, lease_until = NULL WHERE id = ${taskId} AND lease_owner = ${this.leaseOwner}`.catch((error) =>
          this.#options.logger.warn("task.release-failed", { message: String(error) }),
        );
      }
    }
  }
}
