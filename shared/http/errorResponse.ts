/**
 * The HTTP error boundary: the one place a failure becomes an HTTP response, through the one
 * mapping `toMcpError` (an `McpError` keeps its status, code, message and headers; anything else
 * is logged and becomes a bare -32603).
 */
import { toMcpError } from "../errors/toMcpError.ts";
import { errorReply, type RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";

export function errorResponse(error: unknown, id: RequestId | null = null, logger?: Logger): Response {
  const known = toMcpError(error, logger);
  return Response.json(errorReply(id, known), { status: known.status, headers: known.headers });
}

