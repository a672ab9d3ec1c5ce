/**
 * The tasks capability as every runtime has it: its request side (`TASK_ROUTING`: the task
 * methods, and how a `tools/call` becomes a task), which the core reaches through
 * `CompiledServer.runtimeOf`. Each runtime's `tasks()` adds its host.
 */
import type { ExtensionParts, ServerOptions } from "../../shared/definition/ServerOptions.ts";
import { TASK_ROUTING } from "./taskMethods.ts";

/** `Extension.extend` of `tasks()`: advertised by `server/discover` alone (`sessions: false`), with its request side. */
export const withTaskRouting = (options: ServerOptions): ExtensionParts => ({ settings: {}, options, sessions: false, runtime: TASK_ROUTING });
