/**
 * Tasks held in Deno KV, for a Deno server started with `--kv`: any process sharing the
 * KV file can create a task, read it, update it, cancel it or run it, and a task whose process
 * died — killed, redeployed, restarted — is picked up by another process, or by the same one once
 * it is back. The same `TaskHost` runs each task as on Workers and in memory, over a store in KV
 * (`["task", <id>, …]`, shared: progress stored, a status another process made final never
 * written over).
 *
 * Deno Deploy has no KV queues, so wakeups are leases and timers:
 * - A task's one wakeup (its "alarm") is `["taskAlarm", <id>]` → epoch ms, indexed by time as
 *   `["taskDue", <at>, <id>]`.
 * - Every process polls the index every `POLL_MS`; a due wakeup is claimed with an atomic check
 *   (moved `CLAIM_MS` ahead), so one process wakes it. A run then holds its wakeup
 *   TASK_LEASE_MS ahead, renewed while it runs (`TaskHost`): if its process dies, the wakeup
 *   comes due and another process starts the handler again (at least once, as on Workers).
 * - A process creating a task claims its first wakeup itself, at once.
 * - A run watches its task's state (`kv.watch`): cancelled through another process, it is aborted.
 * - Listeners (`subscriptions/listen` with `taskIds`) watch the state and result in KV, so they
 *   hear a task's changes from whichever process makes them.
 *
 * Bounded as `LocalTasks` is, through the runtime's fair shares (`kvStore`'s are in KV, `KvShares`):
 * MAX_TASKS and MAX_TASK_BYTES across the processes, MAX_TASKS_PER_CLIENT and
 * MAX_TASK_BYTES_PER_CLIENT per client.
 */
import { notification } from "../../../shared/jsonrpc/messages.ts";
import type { Result } from "../../../shared/definition/Method.ts";
import type { StoreRuntime } from "../../../shared/runtime/Store.ts";
import { TaskHost } from "../TaskHost.ts";
import type { Tasks } from "../../../shared/tasks/Tasks.ts";
import { detailedTask, type TaskStart, type TaskState } from "../../../shared/tasks/TaskState.ts";
import { KvStorage } from "../../../deno/kv/KvStorage.ts";
import { pauseAfterConflict } from "../../../deno/kv/pauseAfterConflict.ts";

const TASKS = "task";
const ALARMS = "taskAlarm";
const DUE = "taskDue";
/** How often each process looks for wakeups that came due. */
const POLL_MS = 500;
/** How far a claimed wakeup is moved ahead: the claiming process sets the next one well before. */
const CLAIM_MS = 30_000;

const encoder = new TextEncoder();

export class KvTasks implements Tasks {
  readonly #kv: Deno.Kv;
  readonly #options: StoreRuntime;
  /** The tasks whose run (or other wakeup) is under way in this process. */
  readonly #awake = new Map<string, TaskHost>();
  #poller: ReturnType<typeof setInterval> | undefined;
  #polling = false;

  /** `runtime.shares` counts the fair shares (across the processes, with `kvStore`'s `KvShares`). */
  constructor(kv: Deno.Kv, runtime: StoreRuntime) {
    this.#kv = kv;
    this.#options = runtime;
  }

  /** Starts looking for due wakeups (a restarted process picks up what is due at once). */
  start(): void {
    this.#poller ??= setInterval(() => void this.#poll(), POLL_MS);
    void this.#poll();
  }

  /** Stops polling and aborts the runs under way here; their leases bring them back elsewhere. */
  close(): void {
    clearInterval(this.#poller);
    this.#poller = undefined;
    for (const host of this.#awake.values()) host.stop();
  }

  async create(start: TaskStart): Promise<Result> {
    const fields = await this.#host(start.taskId).create(start);
    // The first wakeup is this process's: claimed now, not at the next poll of any process.
    void this.#claim(start.taskId);
    return fields;
  }

  async get(taskId: string, owner: string | undefined): Promise<Result | undefined> {
    return this.#host(taskId).get(owner);
  }

  async update(taskId: string, owner: string | undefined, responses: Record<string, unknown>): Promise<boolean> {
    return this.#host(taskId).update(owner, responses);
  }

  async cancel(taskId: string, owner: string | undefined): Promise<boolean> {
    const cancelled = await this.#host(taskId).cancel(owner);
    // A run here hears it at once; one elsewhere through its watch.
    await this.#awake.get(taskId)?.refresh();
    return cancelled;
  }

  async watch(taskId: string, owner: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    if (!(await this.get(taskId, owner))) return undefined;
    const changes = this.#kv.watch<[TaskState, Result]>([this.#key(taskId, "task"), this.#key(taskId, "result")]);
    const reader = changes.getReader();
    // A watch's first value is the state as it is now, which a listener already knows: only what changes after is told.
    let last: string | undefined;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
      },
      pull: async (controller) => {
        for (;;) {
          const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          if (next.done || signal.aborted) return controller.close();
          const [state, result] = next.value;
          // Gone at its TTL: the listener ends.
          if (!state.value) return controller.close();
          const line = JSON.stringify(notification("notifications/tasks", detailedTask(state.value, result.value ?? undefined)));
          const first = last === undefined;
          if (line === last) continue;
          last = line;
          if (first) continue;
          return controller.enqueue(encoder.encode(`${line}\n`));
        }
      },
      cancel: () => reader.cancel().catch(() => {}),
    });
  }

  /** Deletes every task of the principal with this digest, in every process's KV (a user's data erased on request); resolves with how many. */
  async eraseOwnedBy(owner: string): Promise<number> {
    const ids: string[] = [];
    for await (const entry of this.#kv.list<TaskState>({ prefix: [TASKS] })) {
      if (entry.key[2] === "task" && entry.value.owner === owner) ids.push(String(entry.key[1]));
    }
    let erased = 0;
    for (const taskId of ids) {
      if (await this.#host(taskId).erase(owner)) erased++;
      await this.#awake.get(taskId)?.refresh();
    }
    return erased;
  }

  #key(taskId: string, name: string): Deno.KvKey {
    return [TASKS, taskId, name];
  }

  /** A host for one operation on the task: its state is read from KV, not kept. */
  #host(taskId: string): TaskHost {
    return new TaskHost({
      ...this.#options,
      store: new KvStorage(this.#kv, [TASKS, taskId]),
      shared: true,
      schedule: (at) => this.#schedule(taskId, at),
      // Listeners watch KV (`watch`): nothing to tell here.
      publish: () => {},
      gone: () => void this.#schedule(taskId, undefined).catch(() => {}),
    });
  }

  /** Sets (or clears) the task's one wakeup, keeping the time index in step. */
  async #schedule(taskId: string, at: number | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // Only this task's own wakeups race here (a renewal beside a claim): a pause settles it.
      await pauseAfterConflict(attempt);
      const alarm = await this.#kv.get<number>([ALARMS, taskId]);
      const operation = this.#kv.atomic().check(alarm);
      if (alarm.value !== null) operation.delete([DUE, alarm.value, taskId]);
      if (at === undefined) operation.delete([ALARMS, taskId]);
      else operation.set([ALARMS, taskId], at).set([DUE, at, taskId], true);
      if ((await operation.commit()).ok) return;
    }
  }

  /** Claims and runs every wakeup that came due, one poll at a time. */
  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const due: string[] = [];
      for await (const entry of this.#kv.list({ prefix: [DUE], end: [DUE, Date.now() + 1] })) due.push(String(entry.key[2]));
      for (const taskId of due) void this.#claim(taskId);
    } catch (error) {
      this.#options.logger.warn("task.poll-failed", { message: String(error) });
    } finally {
      this.#polling = false;
    }
  }

  /** Moves a due wakeup ahead if no other process did first, then wakes the task here. */
  async #claim(taskId: string): Promise<void> {
    if (this.#awake.has(taskId)) return;
    const alarm = await this.#kv.get<number>([ALARMS, taskId]);
    if (alarm.value === null || alarm.value > Date.now()) return;
    const claimed = Date.now() + CLAIM_MS;
    const won = await this.#kv.atomic().check(alarm).delete([DUE, alarm.value, taskId]).set([ALARMS, taskId], claimed).set([DUE, claimed, taskId], true).commit();
    if (!won.ok || this.#awake.has(taskId)) return;
    const host = this.#host(taskId);
    this.#awake.set(taskId, host);
    // A run hears a cancellation made through another process.
    const changes = this.#kv.watch([this.#key(taskId, "task")]).getReader();
    void (async () => {
      for (let first = true; ; first = false) {
        const next = await changes.read().catch(() => ({ done: true as const }));
        if (next.done) return;
        if (!first) await host.refresh().catch(() => {});
      }
    })();
    try {
      await host.wake();
      // A task gone (its TTL passed, or never stored) keeps no wakeup.
      if ((await this.#kv.get(this.#key(taskId, "task"))).value === null) await this.#schedule(taskId, undefined);
    } finally {
      this.#awake.delete(taskId);
      await changes.cancel().catch(() => {});
    }
  }
}
