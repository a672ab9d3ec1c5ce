/**
 * `tasks()`: the tasks extension's switch (SEP-2663, `io.modelcontextprotocol/tasks`), listed in a
 * definition's `extensions` like every other. With it, tools declared with `task` may run as
 * durable tasks for 2026-07-28 clients that declare the extension; without it such a tool is a
 * definition problem, naming this. It is a 2026-07-28 extension: advertised by `server/discover`
 * and `GET /` only, and there only where some tool may run as a task and the deployment hosts
 * tasks (`MCP_TASK` on Workers). Every method, error and state: docs/tasks.md.
 *
 * The factory brings the extension's request side (`TASK_ROUTING`: the task methods, and how a
 * `tools/call` becomes a task), so a Worker without it ships none of that. The task's own side,
 * where it runs, comes with the runtime's task host (`taskObject(server)` on Workers).
 */
import type { Extension } from "../definition/ServerOptions.ts";
import { TASKS_EXTENSION } from "../methods/tasksExtension.ts";
import { TASK_ROUTING } from "../tasks/taskMethods.ts";

/** @example defineServer({ …, tools: [tool({ …, task: "optional" })], extensions: [tasks()] }) */
export function tasks(): Extension {
  return { id: TASKS_EXTENSION, extend: (options) => ({ settings: {}, options, sessions: false, runtime: TASK_ROUTING }) };
}
