/**
 * Whether this Worker's entry exports the task class: `taskObject(server)` (`McpTask`) says so,
 * and the Worker asks here for the client that reaches the task objects (`durableTasks`). So a
 * Worker whose entry does not export the class ships none of the code that calls it (issue 23: pay
 * for what you use); its task tools are served as the definition says for a deployment without
 * tasks (`config.tasks`). One registry per script, not per definition: a script binds the class once.
 */
import type { Tasks } from "../shared/tasks/Tasks.ts";
import type { TaskObject } from "./TaskObject.ts";

/** How requests reach the task objects of a namespace, each listener bounded to `maxBytes` unread. */
export type TaskObjects = (namespace: DurableObjectNamespace<TaskObject>, maxBytes: number) => Tasks;

let hosted: TaskObjects | undefined;

/** Called by `taskObject(server)`: tasks live in the task objects. */
export function hostTasks(objects: TaskObjects): void {
  hosted = objects;
}

/** The task objects' `Tasks`, where the entry exports the class and `MCP_TASK` is bound; else undefined. */
export function remoteTasks(namespace: DurableObjectNamespace<TaskObject> | undefined, maxBytes: number): Tasks | undefined {
  return namespace && hosted?.(namespace, maxBytes);
}
