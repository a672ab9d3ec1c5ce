/**
 * The span of a request's trip from the entry to the session that runs it, where sessions live
 * elsewhere (a Durable Object): the MCP server span (OpenTelemetry MCP conventions) as the entry
 * sees it — named and attributed like any, child of the client's `params._meta.traceparent` —
 * ended when the session has answered the HTTP request (a JSON reply, a 202, or the start of an
 * SSE stream). The session's own span for the request is its child (`HopTrace.parent`).
 *
 * One span per operation carrying exactly one request (every revision since 2025-06-18 sends
 * one message per POST); a 2025-03-26 batch has no hop span, its requests' spans hang from their
 * own `_meta` contexts. Off, and nothing built, where tracing is off or sessions are local.
 */
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import { isRequest } from "../jsonrpc/messages.ts";
import { type HopTrace, OVER_HTTP } from "../telemetry/Telemetry.ts";
import type { Services } from "./Services.ts";
import type { ClientAddress } from "../http/clientAddress.ts";
import { logId } from "../log/logId.ts";
import { requestHeaders } from "../http/requestHeaders.ts";

export interface Hop {
  trace: HopTrace;
  /** Ends the span with the answer `answered` settles to: its status, or 500 for a throw (which goes on to the router's boundary). */
  end(answered: Promise<Response>): Promise<Response>;
}

export function startHop(services: Services, request: Request, messages: readonly JsonRpcMessage[], protocolVersion: string, sessionId: string, address: ClientAddress): Hop | undefined {
  const { telemetry, sessions } = services.runtime;
  if (!telemetry || !sessions.remote) return undefined;
  const link = requestHeaders(request).get("traceparent") ?? undefined;
  const requests = messages.filter(isRequest);
  if (requests.length !== 1) return { trace: { link }, end: (answered) => answered };
  const span = telemetry.request(requests[0]!, { ...OVER_HTTP, protocolVersion, sessionTag: logId(sessionId), clientAddress: address(), link });
  return {
    trace: { parent: span.traceparent, link },
    end: async (answered) => {
      let status = 500;
      try {
        const response = await answered;
        status = response.status;
        return response;
      } finally {
        span.end({ status });
      }
    },
  };
}
