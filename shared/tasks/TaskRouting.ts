/**
 * The request side of the tasks extension, as `tasks()` brings it (`TASK_ROUTING`): reached
 * through the definition (`ExtensionParts.runtime`), so that only a server that lists `tasks()`
 * ships the task methods and the planning of a call as a task.
 */
import { TASKS_EXTENSION } from "../methods/tasksExtension.ts";
import type { Caller } from "../auth/Caller.ts";
import type { Result } from "../definition/Method.ts";
import type { ClientView } from "../definition/RequestContext.ts";
import type { TaskOptions } from "../definition/ToolDefinition.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import type { Tasks } from "./Tasks.ts";

export interface TaskRouting {
  /** `tasks/get`, `tasks/update`, `tasks/cancel`. */
  readonly methods: ReadonlySet<string>;
  /** Whether a `tools/call` becomes a task: its tool's options, or undefined for a plain call (`planTask`). */
  plan(server: CompiledServer, params: Record<string, unknown>, capabilities: Record<string, unknown>, tasks: Tasks | undefined): TaskOptions | undefined;
  /** Creates the task for a call (`startTask`). */
  start(tasks: Tasks, params: Record<string, unknown>, client: ClientView, caller: Caller | undefined, answers: Record<string, unknown>, shareKey?: string): Promise<Result>;
  /** One of `methods` (`taskMethod`). */
  answer(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>, tasks: Tasks | undefined, owner: string | undefined): Promise<Result>;
  /** What a deployment with task tools and no task host lacks (`NO_TASK_HOST`). */
  readonly unhosted: string;
}

/** The definition's task routing where it offers tasks (some tool may run as one, and `tasks()` is listed); else undefined. */
export function taskRoutingOf(server: CompiledServer): TaskRouting | undefined {
  return server.hasTasks ? (server.runtimeOf(TASKS_EXTENSION) as TaskRouting | undefined) : undefined;
}
