/**
 * Where tasks live, as the routes see them: one operation per extension method, each addressed by
 * the task id (on Workers, the Durable Object of that id: `capabilities/tasks/durable/durableTasks.ts`; in a process,
 * `LocalTasks`). Every operation names the caller's `owner` digest, and a task another principal
 * created answers as an unknown one does.
 */
import type { Result } from "../definition/Method.ts";
import { randomHex } from "../bytes/randomHex.ts";
import type { TaskStart } from "./TaskState.ts";

export interface Tasks {
  /** Stores the task and schedules its run; resolves with its `Task` fields once a `tasks/get` would find it. */
  create(start: TaskStart): Promise<Result>;
  /** The `DetailedTask`, or undefined when there is no such task for `owner`. */
  get(taskId: string, owner: string | undefined): Promise<Result | undefined>;
  /** Answers outstanding input requests; false when there is no such task for `owner`. */
  update(taskId: string, owner: string | undefined, responses: Record<string, unknown>): Promise<boolean>;
  /** False when there is no such task for `owner`. */
  cancel(taskId: string, owner: string | undefined): Promise<boolean>;
  /** The task's changes from now on, one `DetailedTask` JSON per line; undefined when there is no such task for `owner`. */
  watch(taskId: string, owner: string | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined>;
}

/**
 * Task ids are bearer secrets, as session ids are (the extension: "sufficient entropy that a
 * third party cannot enumerate or guess them"): 128 bits from the platform CSPRNG, hex.
 */
export function newTaskId(): string {
  return randomHex(16);
}

/** Whether `id` could be a task id of ours: anything else is unknown without waking a host. */
export function isTaskId(id: unknown): id is string {
  return typeof id === "string" && /^[0-9a-f]{32}$/.test(id);
}
