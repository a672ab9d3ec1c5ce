/**
 * `tasks()` as the package's `workerd` variant makes it: the same capability, plus its part on
 * Workers — the task class an entry exports as `McpTask` (bound as `MCP_TASK`) and the client
 * that reaches its objects. Only a Worker whose definition lists `tasks()` ships them.
 */
import type { Extension } from "../../../shared/definition/ServerOptions.ts";
import type { WorkersPart } from "../../../durable/WorkersPart.ts";
import { TASKS_EXTENSION } from "../../../shared/methods/tasksExtension.ts";
import { withTaskRouting } from "../tasksCapability.ts";
import { durableTasks } from "./durableTasks.ts";
import { TaskObject } from "./TaskObject.ts";

const TASKS_ON_WORKERS: WorkersPart = {
  objects: { McpTask: TaskObject },
  tasks: ({ MCP_TASK }: { MCP_TASK?: DurableObjectNamespace<TaskObject> }, maxBytes: number) => MCP_TASK && durableTasks(MCP_TASK, maxBytes),
};

/** @example defineServer({ …, tools: [tool({ …, task: "optional" })], use: [tasks()] }) */
export function tasks(): Extension<"McpTask"> {
  return { id: TASKS_EXTENSION, extend: withTaskRouting, workers: TASKS_ON_WORKERS };
}
