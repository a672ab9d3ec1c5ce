/**
 * What the Worker and a task object say to each other (`durableTasks.ts`, `TaskObject.ts`), spelled
 * once: an operation's outcome across RPC, and the header naming a listener's owner.
 */
import type { JsonRpcErrorObject } from "../shared/errors/McpError.ts";

/** An operation's outcome across RPC, which carries plain values (an `McpError` would lose its class). */
export type Settled<T> = { ok: true; value: T } | { ok: false; status: number; error: JsonRpcErrorObject; headers?: Record<string, string> };

/** The request header carrying a listener's owner digest (absent without authorization). */
export const OWNER_HEADER = "x-mcp-task-owner";
