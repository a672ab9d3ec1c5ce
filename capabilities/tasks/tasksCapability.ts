/**
 * The tasks capability as every runtime has it: its identifier, and its request side
 * (`TASK_ROUTING`: the task methods, and how a `tools/call` becomes a task), which the core
 * reaches through `ServerDefinition.runtimeOf`. Each runtime's `tasks()` adds its host.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";
import { TASKS_EXTENSION } from "../../shared/methods/tasksExtension.ts";
import { TASK_ROUTING } from "./taskMethods.ts";

export function tasksCapability(): Extension<"McpTask"> {
  return { id: TASKS_EXTENSION, extend: (options) => ({ settings: {}, options, sessions: false, runtime: TASK_ROUTING }) };
}
