/**
 * One task, whatever hosts it: its state machine, its storage and its runs. A Durable Object
 * hosts one per task on Workers (`durable/TaskObject.ts`, beside this file); `LocalTasks` hosts them in a process.
 * The host gives it a key-value store and one wakeup (`schedule`: the object's alarm, or a timer),
 * and is told when the task changes (`publish`) or is gone.
 *
 * Stored, each value bounded by `MAX_TASK_VALUE_BYTES`:
 *   "task"    → `TaskState`: status, times, outstanding input requests, error, run bookkeeping.
 *   "start"   → `TaskStart`: the call as it runs, the client's capabilities, the principal.
 *   "answers" → the client's answers to the task's asks, by key, once `tasks/update` has given
 *               any (until then, those the call came with, kept in "start": one write fewer).
 *   "result"  → the result of a completed task.
 *
 * Lifecycle. `create` stores all of it, then schedules a wakeup now, and only then is the
 * `CreateTaskResult` sent: a `tasks/get` that follows finds the task. The wakeup runs the handler
 * (`runTask`) to an outcome: `completed`, `failed`, or `input_required` with its asks, after
 * which `tasks/update` answers them and schedules the next run. During a run the wakeup is held
 * `TASK_LEASE_MS` ahead (renewed every third of it): if the host loses the run — a deploy, a
 * crash, a reset — the wakeup fires with the state still marked running and starts the handler
 * again. So a task's handler runs at least once, and may run again from the top (at most
 * `MAX_LOST_RUNS` more times, then the task fails): make its side effects idempotent, keyed by
 * `ctx.taskId`. A run whose outcome the store refuses (a value over the storage's limit, a failed
 * write) was not lost: the task fails with a small error that says so, and does not run again.
 * `tasks/cancel` marks the task `cancelled` at once and aborts a run in progress (its signal); whatever the handler does after that is discarded. At `createdAt + ttlMs` the
 * last wakeup deletes every key, whatever the status: nothing is left.
 *
 * Logs name a task by its `logId` tag (`task`), never by its id: whoever holds the id can read,
 * steer and cancel the task.
 *
 * Ownership: a task records the digest of its creator's principal; any other caller gets what an
 * unknown id gets (undefined here, -32602 on the wire).
 */
import { utf8Length } from "../../shared/bytes/utf8Length.ts";
import { DEFAULT_CONFIG } from "../../shared/config/readConfig.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { logId } from "../../shared/log/logId.ts";
import type { Result } from "../../shared/definition/Method.ts";
import { Cancellation } from "../../shared/exchange/Cancellation.ts";
import { answerProblem } from "../../shared/exchange/InputRounds.ts";
import type { KeyValueStore } from "../../shared/storage/KeyValueStore.ts";
import type { AtomicStore } from "../../shared/storage/AtomicStore.ts";
import type { Shares } from "../../shared/shares/Shares.ts";
import { ANONYMOUS } from "../../shared/shares/clientKey.ts";
import { runTask, type RunOutcome, type TaskRunDeps } from "./runTask.ts";
import { detailedTask, MAX_TASK_VALUE_BYTES, type TaskStart, type TaskState, taskFields, TERMINAL } from "../../shared/tasks/TaskState.ts";

/** How far ahead the wakeup is held while a run is under way: a lost run starts again within about this long. */
export const TASK_LEASE_MS = DEFAULT_CONFIG.taskLeaseMs;

/** Runs a task may lose (deploys, crashes, resets) and still be started again; one more, and it fails. */
export const MAX_LOST_RUNS = 2;

const KEY = { state: "task", start: "start", answers: "answers", result: "result" } as const;

/** Why a run was aborted by the host rather than by its deadline. */
const CANCELLED = Symbol("the task was cancelled");
const EXPIRED = Symbol("the task's TTL passed");
const STOPPED = Symbol("the task's host stopped");
const ERASED = Symbol("the task was erased with its user's data");

export interface TaskHostOptions extends TaskRunDeps {
  store: KeyValueStore;
  /** Where tasks are counted per client (fair shares): taken at creation, given back at cancellation or at the TTL. */
  shares?: Shares;
  /**
   * The store is shared with hosts in other processes (Deno KV across processes): progress is
   * stored, so that `tasks/get` anywhere shows it; a run's outcome is not written over a status
   * another host decided meanwhile (a cancellation); and `refresh()` hears such changes.
   */
  shared?: boolean;
  /** Calls `wake()` at this epoch time (replacing any earlier one); undefined: no wakeup. */
  schedule(at: number | undefined): Promise<void>;
  /** The task as `tasks/get` would answer now (a `DetailedTask`), after each change: for its listeners. */
  publish(task: Result): void;
  /** The task was deleted (its TTL passed): its listeners end. */
  gone(): void;
  now?(): number;
}

export class TaskHost {
  readonly #options: TaskHostOptions;
  readonly #now: () => number;
  /** undefined until loaded; null once known absent. */
  #state: TaskState | null | undefined;
  #result: Result | undefined;
  /** The run under way here, claimed (synchronously) before its first await: a wakeup that overlaps it starts none. */
  #run: Cancellation | undefined;
  /** Set by `stop()`: no run starts after it, not even one whose wakeup had begun. */
  #stopped = false;

  constructor(options: TaskHostOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Aborts a run under way, leaving the stored state as it is: the host is going away (a process that exits, a test that ends). */
  stop(): void {
    this.#stopped = true;
    this.#run?.abort(STOPPED);
  }

  /**
   * Reads the state again from the store, where another host may have changed it (a shared store):
   * a run under way here for a task no longer working (cancelled elsewhere) is aborted.
   */
  async refresh(): Promise<void> {
    const stored = (await this.#options.store.get<TaskState>(KEY.state)) ?? null;
    this.#state = stored;
    if (this.#run && stored?.status !== "working") this.#run.abort(stored ? CANCELLED : EXPIRED);
  }

  /** Whether a run of the handler is under way here. */
  get running(): boolean {
    return this.#run !== undefined;
  }

  /**
   * Stores a new task and schedules its first run; resolves with its `Task` fields once stored.
   * @throws McpError -32602 when the call is too large to store as a task.
   */
  async create(start: TaskStart): Promise<Result> {
    const size = utf8Length(JSON.stringify(start));
    if (size > MAX_TASK_VALUE_BYTES) {
      throw McpError.invalidParams(`This call is ${size} bytes, more than the ${MAX_TASK_VALUE_BYTES} bytes a task stores for its request; send smaller arguments`);
    }
    const { store, config, shares } = this.#options;
    const now = this.#now();
    if (shares) {
      const share = await shares.acquire("task", start.shareKey ?? ANONYMOUS, start.taskId, { until: now + config.taskTtlMs, bytes: size });
      if (!share.ok) throw share.error;
    }
    const state: TaskState = {
      taskId: start.taskId,
      ...(start.owner === undefined ? {} : { owner: start.owner }),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: config.taskTtlMs,
      pollIntervalMs: config.taskPollIntervalMs,
      running: false,
      lostRuns: 0,
    };
    await store.put(KEY.start, start);
    await store.put(KEY.state, state);
    this.#state = state;
    await this.#options.schedule(now);
    return taskFields(state);
  }

  /** `tasks/get`: the `DetailedTask`, or undefined for a task that is not there or not `owner`'s. */
  async get(owner: string | undefined): Promise<Result | undefined> {
    const state = await this.#mine(owner);
    if (!state) return undefined;
    if (state.status === "completed") this.#result ??= await this.#options.store.get<Result>(KEY.result);
    return detailedTask(state, this.#result);
  }

  /**
   * `tasks/update`: takes the answers to outstanding input requests and ignores any other key;
   * once none is outstanding, the handler runs again. Resolves false for an unknown task.
   * @throws McpError -32602 for an answer that cannot answer its request, or answers past the size limit (nothing is taken then)
   */
  async update(owner: string | undefined, responses: Record<string, unknown>): Promise<boolean> {
    const state = await this.#mine(owner);
    if (!state) return false;
    const outstanding = state.status === "input_required" ? (state.inputRequests ?? {}) : {};
    const taken = Object.keys(responses).filter((key) => Object.hasOwn(outstanding, key));
    if (taken.length === 0) return true;
    for (const key of taken) {
      const problem = answerProblem(outstanding[key]!.method, responses[key]);
      if (problem) throw McpError.invalidParams(`inputResponses["${key}"] is not a valid answer to ${outstanding[key]!.method}: ${problem}`);
    }
    const { store } = this.#options;
    const answers = { ...(await this.#answers()) };
    for (const key of taken) answers[key] = responses[key];
    const size = utf8Length(JSON.stringify(answers));
    if (size > MAX_TASK_VALUE_BYTES) throw McpError.invalidParams(`These answers would bring the task's stored answers to ${size} bytes, more than its limit of ${MAX_TASK_VALUE_BYTES}`);
    const remaining = Object.fromEntries(Object.entries(outstanding).filter(([key]) => !taken.includes(key)));
    await store.put(KEY.answers, answers);
    const resumes = Object.keys(remaining).length === 0;
    await this.#change(resumes ? { status: "working", inputRequests: undefined, statusMessage: undefined } : { inputRequests: remaining });
    if (resumes) await this.#options.schedule(this.#now());
    return true;
  }

  /** `tasks/cancel`: a task not yet finished is cancelled now and its run aborted. Resolves false for an unknown task. */
  async cancel(owner: string | undefined): Promise<boolean> {
    const state = await this.#mine(owner);
    if (!state) return false;
    if (TERMINAL.has(state.status)) return true;
    await this.#change({ status: "cancelled", statusMessage: "Cancelled at the client's request", inputRequests: undefined, running: false });
    this.#run?.abort(CANCELLED);
    await this.#options.schedule(this.#expiresAt(state));
    await this.#free();
    return true;
  }

  /**
   * Deletes the task now, whatever its status — every key and its wakeup — for its owner only (a
   * user's data erased on request). Resolves false for a task that is not there or not `owner`'s.
   */
  async erase(owner: string | undefined): Promise<boolean> {
    const state = await this.#mine(owner);
    if (!state) return false;
    this.#run?.abort(ERASED);
    await this.#free();
    await this.#options.store.deleteAll();
    this.#state = null;
    this.#result = undefined;
    this.#options.gone();
    return true;
  }

  /**
   * A cancelled task runs no more: its call and answers are deleted now (its status stays for
   * `tasks/get` until the TTL), and its client's share is given back at once.
   */
  async #free(): Promise<void> {
    const { store, shares } = this.#options;
    const start = await store.get<TaskStart>(KEY.start);
    await store.delete(KEY.start);
    await store.delete(KEY.answers);
    if (start) await shares?.release("task", start.shareKey ?? ANONYMOUS, start.taskId);
  }

  /** The wakeup: deletes the task past its TTL, starts (or restarts) a run that is due, or re-arms. Never rejects. */
  async wake(): Promise<void> {
    try {
      await this.#wake();
    } catch (error) {
      const taskId = this.#state?.taskId;
      this.#options.logger.error("task.wake-failed", { ...(taskId === undefined ? {} : { task: logId(taskId) }), message: String(error) });
      // Tried again later; a task that cannot be woken still ends at its TTL.
      await this.#options.schedule(this.#now() + this.#options.config.taskLeaseMs).catch(() => {});
    }
  }

  async #wake(): Promise<void> {
    const state = await this.#load();
    const { store, schedule } = this.#options;
    if (!state) {
      // A stray wakeup of a task that is gone: make sure nothing is left.
      await store.deleteAll();
      return;
    }
    const now = this.#now();
    if (now >= this.#expiresAt(state)) {
      this.#run?.abort(EXPIRED);
      const start = await store.get<TaskStart>(KEY.start);
      await store.deleteAll();
      this.#state = null;
      this.#result = undefined;
      this.#options.gone();
      // Its client's share goes with it rather than lapsing later: a store's rows end with the task.
      if (start) await this.#options.shares?.release("task", start.shareKey ?? ANONYMOUS, start.taskId);
      return;
    }
    if (state.status !== "working") return schedule(this.#expiresAt(state));
    if (this.#run) return schedule(this.#leaseEnd(state));
    if (this.#stopped) return;
    // Claimed before any await, so that wakeups overlapping this one (a retried alarm, a timer
    // beside an update) find the run under way rather than start a second.
    const run = new Cancellation();
    this.#run = run;
    try {
      if (state.running) {
        const lostRuns = state.lostRuns + 1;
        this.#options.logger.warn("task.run-lost", { task: logId(state.taskId), lostRuns });
        if (lostRuns > MAX_LOST_RUNS) {
          const message = `The task's run was lost ${lostRuns} times (deploys, crashes or resets) and is not started again`;
          await this.#change({ status: "failed", running: false, lostRuns, statusMessage: message, error: { code: ErrorCode.InternalError, message } });
          return schedule(this.#expiresAt(state));
        }
        await this.#change({ lostRuns }, false);
      }
      await this.#execute(run);
    } finally {
      if (this.#run === run) this.#run = undefined;
    }
  }

  async #execute(run: Cancellation): Promise<void> {
    const { store, schedule, logger } = this.#options;
    await this.#change({ running: true }, false);
    await schedule(this.#leaseEnd(this.#state!));
    // Stopped, cancelled or expired while the run was being recorded: the handler never starts.
    if (run.aborted) return;
    const heartbeat = setInterval(() => {
      if (this.#state) schedule(this.#leaseEnd(this.#state)).catch((error) => logger.warn("task.lease-failed", { message: String(error) }));
    }, this.#options.config.taskLeaseMs / 3);
    let outcome: RunOutcome;
    try {
      const start = (await store.get<TaskStart>(KEY.start))!;
      const answers = (await store.get<Record<string, unknown>>(KEY.answers)) ?? start.answers;
      outcome = await runTask(start, answers, this.#options, run, (statusMessage) => {
        if (this.#run === run) void this.#change({ statusMessage }, true, this.#options.shared === true);
      });
    } finally {
      clearInterval(heartbeat);
    }
    // Cancelled or expired meanwhile, here or (a shared store) by another host: that already decided the status.
    if (this.#options.shared && outcome.status !== "aborted") await this.refresh();
    const state = this.#state;
    if (outcome.status === "aborted" || !state || state.status !== "working") return;
    try {
      await this.#settle(outcome);
    } catch (error) {
      // The run happened; only its record failed (a value over the storage's limit, a refused
      // write). Not a lost run: run again, the handler would meet the same wall, and blame deploys.
      logger.error("task.outcome-unstored", { task: logId(state.taskId), outcome: outcome.status, message: String(error) });
      this.#result = undefined;
      await store.delete(KEY.result).catch(() => false);
      const message = `The task's run ended (${outcome.status}), but that outcome could not be stored, so the task failed; its handler is not run again`;
      await this.#change({ status: "failed", running: false, inputRequests: undefined, error: { code: ErrorCode.InternalError, message }, statusMessage: message });
    }
    await schedule(this.#expiresAt(state));
  }

  /** Stores a run's outcome as the task's next status. @throws whatever the store throws (nothing is changed in memory then) */
  async #settle(outcome: Exclude<RunOutcome, { status: "aborted" }>): Promise<void> {
    if (outcome.status === "completed") {
      await this.#options.store.put(KEY.result, outcome.result);
      this.#result = outcome.result;
      await this.#change({ status: "completed", running: false, statusMessage: undefined });
    } else if (outcome.status === "failed") {
      await this.#change({ status: "failed", running: false, error: outcome.error, statusMessage: outcome.error.message });
    } else {
      await this.#change({ status: "input_required", running: false, inputRequests: outcome.inputRequests });
    }
  }

  /**
   * Applies a change to the state: in memory at once; stored unless `store` is false (a progress
   * message, which a lost run would report again); told to listeners when `announce`.
   */
  async #change(change: Partial<TaskState>, announce = true, store = true): Promise<void> {
    const state = this.#state;
    if (!state) return;
    const next: TaskState = { ...state, ...change };
    for (const key of Object.keys(next) as (keyof TaskState)[]) if (next[key] === undefined) delete next[key];
    if (announce) next.lastUpdatedAt = this.#now();
    this.#state = next;
    let written = true;
    try {
      if (store) written = await this.#write(next);
    } catch (error) {
      // Not stored: memory stays as storage has it, so a later wakeup does not act on a state that never was.
      if (this.#state === next) this.#state = state;
      throw error;
    }
    if (!written) {
      // Another host ended the task meanwhile (a shared store): its status stands, and a run here stops.
      await this.refresh();
      return;
    }
    if (announce) this.#options.publish(detailedTask(next, next.status === "completed" ? this.#result : undefined));
  }

  /**
   * Stores the state. In a shared store (`shared`, an `AtomicStore`), a status another host made
   * final is never written over: false then, and nothing is written.
   */
  async #write(next: TaskState): Promise<boolean> {
    const { store, shared } = this.#options;
    if (!shared || !("atomically" in store)) {
      await store.put(KEY.state, next);
      return true;
    }
    return (store as AtomicStore).atomically(async (txn) => {
      const stored = await txn.get<TaskState>(KEY.state);
      if (stored && TERMINAL.has(stored.status) && stored.status !== next.status) return false;
      txn.put(KEY.state, next);
      return true;
    });
  }

  /** The task if it exists, has not expired and belongs to `owner`. */
  async #mine(owner: string | undefined): Promise<TaskState | undefined> {
    const state = await this.#load();
    if (!state || state.owner !== owner || this.#now() >= this.#expiresAt(state)) return undefined;
    return state;
  }

  /** The answers so far: those `tasks/update` stored, or else those the call came with. */
  async #answers(): Promise<Record<string, unknown>> {
    const { store } = this.#options;
    return (await store.get<Record<string, unknown>>(KEY.answers)) ?? (await store.get<TaskStart>(KEY.start))?.answers ?? {};
  }

  async #load(): Promise<TaskState | undefined> {
    if (this.#state === undefined) this.#state = (await this.#options.store.get<TaskState>(KEY.state)) ?? null;
    return this.#state ?? undefined;
  }

  #expiresAt(state: TaskState): number {
    return state.createdAt + state.ttlMs;
  }

  #leaseEnd(state: TaskState): number {
    return Math.min(this.#now() + this.#options.config.taskLeaseMs, this.#expiresAt(state));
  }
}
