/**
 * The error boundary: the one place a failure becomes an HTTP response. An `McpError` keeps its
 * status, code, message and headers; anything else is a bug of ours, so it is logged once with
 * its stack and the client gets a bare -32603 with no detail (no stack trace on the wire).
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";

export function errorResponse(error: unknown, id: RequestId | null = null, logger?: Logger): Response {
  const known = toMcpError(error, logger);
  const body = { jsonrpc: "2.0", id, error: known.toJsonRpc() };
  return Response.json(body, { status: known.status, headers: known.headers });
}

/** The JSON-RPC error for any thrown value; unknown ones are logged and masked. */
export function toMcpError(error: unknown, logger?: Logger): McpError {
  if (error instanceof McpError) return error;
  logger?.error("internal.error", { message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
  return new McpError(500, ErrorCode.InternalError, "Internal error");
}
