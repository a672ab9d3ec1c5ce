/**
 * Tasks hosted in this process (the Deno server, stdio, tests) by the same `TaskHost` a Durable
 * Object hosts on Workers, with what the platform would give it done by hand: memory storage, an
 * alarm for its wakeups (`LocalAlarms`), and a `Broadcaster` topic for its listeners. A process that stops loses
 * its tasks (their clients then get -32602 for them); a Worker's tasks are durable.
 *
 * Bounded: at most MAX_TASKS tasks at once (a create past it gets 429 with Retry-After), each
 * holding at most its bounded values (`MAX_TASK_VALUE_BYTES` each) until its TTL, when its host
 * deletes it and this forgets it.
 */
import { type Broadcaster, taskTopic } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { notification } from "../jsonrpc/messages.ts";
import { LocalAlarms } from "../timers/LocalAlarms.ts";
import type { Logger } from "../log/Logger.ts";
import type { Result } from "../definition/Method.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import type { Homes } from "../home/Homes.ts";
import { TaskHost } from "./TaskHost.ts";
import type { Tasks } from "./Tasks.ts";
import type { TaskStart } from "./TaskState.ts";

export interface LocalTasksOptions {
  server: ServerDefinition;
  config: Config;
  logger: Logger;
  env: ServerEnv;
  broadcast: Broadcaster;
  /** Where tools with a home of their own run; undefined where none are hosted. */
  homes?: Homes;
}

/** Seconds a create refused for MAX_TASKS is told to wait: a slot frees when some task's TTL passes. */
const FULL_RETRY_AFTER_SECONDS = 60;

export class LocalTasks implements Tasks {
  readonly #options: LocalTasksOptions;
  readonly #hosts = new Map<string, TaskHost>();
  readonly #alarms = new LocalAlarms();

  constructor(options: LocalTasksOptions) {
    this.#options = options;
  }

  /** Tasks held now. */
  get size(): number {
    return this.#hosts.size;
  }

  async create(start: TaskStart): Promise<Result> {
    const { maxTasks } = this.#options.config;
    if (this.#hosts.size >= maxTasks) {
      throw new McpError(429, ErrorCode.ServerBusy, `This server holds at most ${maxTasks} tasks at once (MAX_TASKS) and has that many; retry after ${FULL_RETRY_AFTER_SECONDS}s`, undefined, {
        "retry-after": String(FULL_RETRY_AFTER_SECONDS),
      });
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
    return (await this.#hosts.get(taskId)?.cancel(owner)) ?? false;
  }

  async watch(taskId: string, owner: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
    if (!(await this.get(taskId, owner))) return undefined;
    return this.#options.broadcast.subscribe(taskTopic(taskId), signal);
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
  }
}
