/**
 * The one mapping from anything thrown to the error a client reads. An `McpError` is kept as it
 * is; anything else is a bug of ours, so it is logged once with its stack and the client gets a
 * bare -32603 with no detail (no stack trace on the wire). Both boundaries use it: an HTTP
 * response (`errorResponse`) and a JSON-RPC reply on a stream (the exchange).
 */
import type { Logger } from "../log/Logger.ts";
import { ErrorCode } from "./errorCodes.ts";
import { McpError } from "./McpError.ts";

export function toMcpError(error: unknown, logger?: Logger): McpError {
  if (error instanceof McpError) return error;
  logger?.error("internal.error", { message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
  return new McpError(500, ErrorCode.InternalError, "Internal error");
}
