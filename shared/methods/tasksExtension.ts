/**
 * The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`), as far as the protocol layer
 * knows it: its name, how a 2026-07-28 request declares it (in its own `_meta` client
 * capabilities, under `extensions`: nothing carries over between requests), and the -32021 a
 * request gets when it needs the extension and did not declare it.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { isObject } from "../jsonrpc/isObject.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The methods the extension adds; `tasks/result` and `tasks/list` of the 2025-11-25 draft are gone (-32601). */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);

/** Whether client capabilities (a request's `_meta`, or a session's `initialize`) declare the extension. */
export function declaresTasks(capabilities: Record<string, unknown> | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension in `data.requiredCapabilities`; `what` completes "… needs the tasks extension". */
export function tasksRequired(what: string): McpError {
  return new McpError(400, ErrorCode.MissingRequiredClientCapability, `${what} needs the tasks extension (${TASKS_EXTENSION}), which this request's _meta client capabilities do not declare`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}
