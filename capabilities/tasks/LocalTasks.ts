/**
 * Tasks hosted in this process (the Deno server, stdio, tests) by the same `TaskHost` a Durable
 * Object hosts on Workers, with what the platform would give it done by hand: memory storage, an
 * alarm for its wakeups (`LocalAlarms`), and a `Broadcaster` topic for its listeners. A process that stops loses
 * its tasks (their clients then get -32602 for them); a Worker's tasks are durable.
 *
 * Bounded by its runtime's fair shares: at most MAX_TASKS tasks and MAX_TASK_BYTES
 * of arguments at once, and per client MAX_TASKS_PER_CLIENT and MAX_TASK_BYTES_PER_CLIENT, less
 * past half a total (a create past one gets 429 with Retry-After naming it), each task holding its bounded values
 * (`MAX_TASK_VALUE_BYTES` each) until its TTL, when its host deletes it and this forgets it. A
 * cancelled task gives its share back at once and keeps only its status until its TTL; at most
 * twice MAX_TASKS tasks are held, cancelled ones forgotten early, oldest first, to stay within it.
 */
import { taskTopic } from "../../shared/broadcast/Broadcaster.ts";
import { notification } from "../../shared/jsonrpc/messages.ts";
import { LocalAlarms } from "../../shared/timers/LocalAlarms.ts";
import type { Result } from "../../shared/definition/Method.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { TaskHost } from "./TaskHost.ts";
import type { LocalRuntime } from "../../shared/runtime/localRuntime.ts";
import type { Tasks } from "../../shared/tasks/Tasks.ts";
import type { TaskStart } from "../../shared/tasks/TaskState.ts";

export class LocalTasks implements Tasks {
  readonly #options: LocalRuntime;
  readonly #hosts = new Map<string, TaskHost>();
  readonly #alarms = new LocalAlarms();
  /** Tasks cancelled and still held, oldest first. */
  readonly #cancelled = new Set<string>();

  constructor(runtime: LocalRuntime) {
    this.#options = runtime;
  }

  /** Tasks held now. */
  get size(): number {
    return this.#hosts.size;
  }

  async create(start: TaskStart): Promise<Result> {
    // A cancelled task gave its share back but stays readable until its TTL: past twice MAX_TASKS
    // held, the oldest cancelled one is forgotten early (its client asked to be rid of it).
    for (const taskId of this.#cancelled) {
      if (this.#hosts.size < 2 * this.#options.config.maxTasks) break;
      this.#hosts.get(taskId)?.stop();
      this.#forget(taskId);
    }
    const host = this.#host(start.taskId);
    try {
      return await host.create(start);
    } catch (error) {
      this.#forget(start.taskId);
      throw error;
    }
  }

  async get(taskId: string, owner: string | undefined): Promise<Result | undefined> {
    return this.#hosts.get(taskId)?.get(owner);
  }

  async update(taskId: string, owner: string | undefined, responses: Record<string, unknown>): Promise<boolean> {
    return (await this.#hosts.get(taskId)?.update(owner, responses)) ?? false;
  }

  async cancel(taskId: string, owner: string | undefined): Promise<boolean> {
    const cancelled = (await this.#hosts.get(taskId)?.cancel(owner)) ?? false;
    if (cancelled) this.#cancelled.add(taskId);
    return cancelled;
  }

  async watch(taskId: string, owner: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    if (!(await this.get(taskId, owner))) return undefined;
    return this.#options.broadcast.subscribe(taskTopic(taskId), signal);
  }

  /** Deletes every task of the principal with this digest (a user's data erased on request); resolves with how many. */
  async eraseOwnedBy(owner: string): Promise<number> {
    let erased = 0;
    for (const [taskId, host] of [...this.#hosts]) {
      if (await host.erase(owner)) {
        this.#forget(taskId);
        erased++;
      }
    }
    return erased;
  }

  /** Aborts every run, stops every timer and forgets every task: for a clean process exit, a closed connection or the end of a test. */
  close(): void {
    for (const host of this.#hosts.values()) host.stop();
    this.#alarms.clearAll();
    this.#hosts.clear();
  }

  #host(taskId: string): TaskHost {
    const { broadcast, logger } = this.#options;
    const host = new TaskHost({
      ...this.#options,
      store: new MemoryStorage(),
      // The object's alarm: one per task, a new one replaces the old.
      schedule: async (at) => (at === undefined ? this.#alarms.clear(taskId) : this.#alarms.set(taskId, at, () => void this.#hosts.get(taskId)?.wake())),
      publish: (task) => {
        broadcast.publish(taskTopic(taskId), notification("notifications/tasks", task)).catch((error) => logger.warn("task.publish-failed", { message: String(error) }));
      },
      gone: () => this.#forget(taskId),
    });
    this.#hosts.set(taskId, host);
    return host;
  }

  #forget(taskId: string): void {
    this.#alarms.clear(taskId);
    this.#hosts.delete(taskId);
    this.#cancelled.delete(taskId);
  }
}
