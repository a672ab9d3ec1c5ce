/**
 * The HTTP error boundary: the one place a failure becomes an HTTP response, through the one
 * mapping `toMcpError` (an `McpError` keeps its status, code, message and headers; anything else
 * is logged and becomes a bare -32603).
 */
import { toMcpError } from "../errors/toMcpError.ts";
import { errorReply, type RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { type TextAnswer, toResponse } from "./Answer.ts";

export function errorResponse(error: unknown, id: RequestId | null = null, logger?: Logger): Response {
  return toResponse(errorAnswer(error, id, logger));
}

/** The same answer as plain data, for a host whose answers cross an RPC boundary (`Answer`). */
export function errorAnswer(error: unknown, id: RequestId | null = null, logger?: Logger): TextAnswer {
  const known = toMcpError(error, logger);
  return { status: known.status, headers: { "content-type": "application/json", ...known.headers }, body: JSON.stringify(errorReply(id, known)) };
}

