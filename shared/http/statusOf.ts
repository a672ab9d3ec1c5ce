/**
 * The HTTP status of a JSON answer that carries a JSON-RPC reply, on protocol 2026-07-28, whose
 * errors have statuses (transports spec 2026-07-28: 404 with -32601 for an unknown method, 400
 * for everything the client must fix); a result is 200. Decided here, from the reply alone, so
 * that nothing below the HTTP layer carries a status. (Sessions answer every reply with 200.)
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import type { JsonRpcResponse } from "../jsonrpc/messages.ts";

export function statusOf(reply: JsonRpcResponse): number {
  if (!("error" in reply)) return 200;
  switch (reply.error.code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.InternalError:
      return 500;
    case ErrorCode.ServerBusy:
      return 429;
    default:
      return 400;
  }
}

/**
 * The headers a JSON answer adds for its reply: `Retry-After` for a server-busy error that says
 * how long to wait (`data.retryAfterSeconds`, as a refused fair share does); none otherwise.
 */
export function headersOf(reply: JsonRpcResponse): Record<string, string> | undefined {
  if (!("error" in reply) || reply.error.code !== ErrorCode.ServerBusy) return undefined;
  const seconds = (reply.error.data as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === "number" ? { "retry-after": String(seconds) } : undefined;
}
