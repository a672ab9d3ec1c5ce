/**
 * `tasks()`: the tasks extension's switch (SEP-2663, `io.modelcontextprotocol/tasks`), listed in a
 * definition's `extensions` like every other. With it, tools declared with `task` may run as
 * durable tasks for 2026-07-28 clients that declare the extension; without it such a tool is a
 * definition problem, naming this. It is a 2026-07-28 extension: advertised by `server/discover`
 * and `GET /` only, and there only where some tool may run as a task and the deployment hosts
 * tasks (`MCP_TASK` on Workers). Every method, error and state: docs/tasks.md.
 *
 * Not yet here: the task machinery itself (the task object, its host, the task methods), which
 * every Worker still carries; issue 23 moves it behind this factory.
 */
import type { Extension } from "../definition/ServerOptions.ts";
import { TASKS_EXTENSION } from "../methods/tasksExtension.ts";

/** @example defineServer({ …, tools: [tool({ …, task: "optional" })], extensions: [tasks()] }) */
export function tasks(): Extension {
  return { id: TASKS_EXTENSION, extend: (options) => ({ settings: {}, options, sessions: false }) };
}
