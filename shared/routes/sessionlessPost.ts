/**
 * A 2025 request on `/mcp` that carries no `Mcp-Session-Id`. claude.ai sends its requests so: it
 * opens with `initialize` and never echoes the session id, and a
 * server that insists gets its calls dropped without a word. The transports spec lets a server
 * that does not require a session serve them, and one that lists tools or calls a tool needs
 * none: such a request runs as a 2026-07-28 one does, in the process that received it (on
 * Workers, no Durable Object hop), worded for its own revision (`statelessExchange`).
 *
 * What needs a session still does, with a 400 that says so: batches, responses to the server's
 * requests, subscriptions, a log level, tasks, and asking the client (elicitation, sampling,
 * roots), since without a session there is nowhere to send the question. A notification alone
 * (`notifications/initialized` first of all) is accepted with 202: it asks for nothing.
 */
import { McpError } from "../errors/McpError.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { isNotification, isRequest, type JsonRpcMessage } from "../jsonrpc/messages.ts";
import type { ProtocolVersion } from "../protocol/versions.ts";
import type { RequestMeta } from "../stateless/readRequestMeta.ts";
import type { StatelessHost } from "../stateless/statelessExchange.ts";
import type { Caller } from "../auth/Caller.ts";
import type { ClientAddress } from "../http/clientAddress.ts";
import { answerStateless } from "./statelessPost.ts";

const NEEDS_SESSION = "Missing Mcp-Session-Id header; this message needs a session: initialize one and send its Mcp-Session-Id";

/** `caller` and `address` as `statelessPost` takes them. */
export function sessionlessPost(host: StatelessHost, request: Request, { messages, batch }: { messages: readonly JsonRpcMessage[]; batch: boolean }, version: ProtocolVersion, caller?: Caller, address?: ClientAddress): Promise<Response> | Response {
  const [message] = messages;
  if (!batch && messages.every(isNotification)) return new Response(null, { status: 202 });
  if (batch || messages.length !== 1 || !message || !isRequest(message)) return errorResponse(McpError.invalidRequest(NEEDS_SESSION));
  // No capabilities: a client without a session declared none that this request could use.
  const meta: RequestMeta = { protocolVersion: version, clientCapabilities: {} };
  return answerStateless(host, request, { request: message, meta, caller, address });
}
