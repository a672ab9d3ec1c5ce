/**
 * `tasks()`: the tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`), listed in a
 * definition's `use`. With it, tools declared with `task` may run as durable tasks for
 * 2026-07-28 clients that declare the extension; without it such a tool is a definition problem,
 * naming this. It is a 2026-07-28 extension: advertised by `server/discover` and `GET /` only,
 * and there only where some tool may run as a task and the deployment hosts tasks (`MCP_TASK` on
 * Workers). Every method, error and state: docs/tasks.md.
 *
 * The factory brings the extension's request side (`TASK_ROUTING`: the task methods, and how a
 * `tools/call` becomes a task), so a Worker without it ships none of that. This is the variant of
 * every runtime but Workers: it brings the host of a process (`LocalTasks`) too. On Workers the
 * `workerd` variant (`durable/tasksOnWorkers.ts`) brings the task class and its client instead.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";
import type { LocalTasksPart } from "../../shared/runtime/localRuntime.ts";
import { LocalTasks } from "./LocalTasks.ts";
import { TASKS_EXTENSION } from "../../shared/methods/tasksExtension.ts";
import { withTaskRouting } from "./tasksCapability.ts";

const LOCAL_TASKS: LocalTasksPart = { tasks: (runtime) => new LocalTasks(runtime) };

/** @example defineServer({ …, tools: [tool({ …, task: "optional" })], use: [tasks()] }) */
export function tasks(): Extension<"McpTask"> {
  return { id: TASKS_EXTENSION, extend: withTaskRouting, local: LOCAL_TASKS };
}
