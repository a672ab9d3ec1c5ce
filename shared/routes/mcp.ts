/**
 * `/mcp` — the Streamable HTTP endpoint of every era. Checks that need no session run here, before
 * any Durable Object hop: Accept (406), content type (415), body size (413), JSON and JSON-RPC
 * shape (400). Then the era is decided once (`namesRevision`, then `eraOfVersionHeader`):
 * - 2026-07-28 requests are answered here, statelessly (`statelessPost`); GET and DELETE,
 *   which that revision does not have, get 405;
 * - 2025-03-26 … 2025-11-25: protocol version header (400), session header (404 not ours);
 *   `initialize` mints the session id; everything else goes to that session as one
 *   `SessionOperation`, with the caller's digest (the session answers only its own user) and, for
 *   handlers, its principal. A message with no session header at all is answered without one
 *   where it needs none (`sessionlessPost`: claude.ai never echoes the id).
 *
 * Where tokens are checked, a message naming a definition whose scopes the token lacks is refused
 * with 403 once the body is read, in either era.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { requireAccept, requireMcpSessionId, requireProtocolVersion } from "../http/guards.ts";
import { readMessages } from "../http/readMessages.ts";
import { isRequest } from "../jsonrpc/messages.ts";
import { newSessionId } from "../session/newSessionId.ts";
import { clientKey } from "../shares/clientKey.ts";
import { classifyBodiless, eraOfVersionHeader, namesRevision } from "../stateless/classifyEra.ts";
import { type Handler, refuseScopes } from "./Services.ts";
import { statelessPost } from "./statelessPost.ts";
import { sessionlessPost } from "./sessionlessPost.ts";
import { startHop } from "./hopSpan.ts";
import { requestHeaders } from "../http/requestHeaders.ts";

const POST_ACCEPTS = ["application/json", "text/event-stream"];
const GET_ACCEPTS = ["text/event-stream"];

export const postMcp: Handler = async (request, services, caller, address) => {
  const { sessions, config } = services.runtime;
  const accept = requireAccept(request, POST_ACCEPTS);
  if (!accept.ok) return errorResponse(accept.error);
  const parsed = await readMessages(request, config.maxBodyBytes);
  if (!parsed.ok) return errorResponse(parsed.error, parsed.id);
  const { messages, batch, size } = parsed.value;
  const denied = refuseScopes(request, messages, services, caller);
  if (denied) return denied;
  // A body that names its revision is stateless, and its own checks read the version header; any
  // other POST needs the header to tell its era, and its session its version: read once for both.
  if (namesRevision(messages, batch)) return statelessPost(services, request, parsed.value, caller, address);
  const versionHeader = requestHeaders(request).get("mcp-protocol-version");
  if (eraOfVersionHeader(versionHeader, batch) === "stateless") return statelessPost(services, request, parsed.value, caller, address);
  const version = requireProtocolVersion(request, versionHeader);
  if (!version.ok) return errorResponse(version.error);

  if (batch && version.value !== "2025-03-26") {
    return errorResponse(McpError.invalidRequest(`JSON-RPC batches are not part of protocol ${version.value}; send one message per POST`));
  }
  const initialize = messages.find((m) => isRequest(m) && m.method === "initialize");
  if (initialize) {
    if (messages.length > 1) return errorResponse(McpError.invalidRequest("initialize must be sent alone, not in a batch"));
    if (requestHeaders(request).has("mcp-session-id")) {
      return errorResponse(McpError.invalidRequest("initialize starts a new session: send it without Mcp-Session-Id"));
    }
    const shareKey = await clientKey(caller, address());
    const sessionId = newSessionId();
    const hop = startHop(services, request, messages, version.value, sessionId, address);
    const answered = sessions.apply({ kind: "post", sessionId, messages, size, create: true, owner: caller?.owner, auth: caller?.auth, shareKey, trace: hop?.trace });
    return hop ? hop.end(answered) : answered;
  }
  const sessionId = requestHeaders(request).get("mcp-session-id");
  if (sessionId === null) return sessionlessPost(services, request, parsed.value, version.value, caller, address);
  const session = requireMcpSessionId(request, sessionId);
  if (!session.ok) return errorResponse(session.error);
  const hop = startHop(services, request, messages, version.value, session.value, address);
  const answered = sessions.apply({ kind: "post", sessionId: session.value, messages, size, create: false, owner: caller?.owner, auth: caller?.auth, trace: hop?.trace });
  return hop ? hop.end(answered) : answered;
};

export const getMcp: Handler = async (request, { runtime: { sessions } }, caller) => {
  if (classifyBodiless(requestHeaders(request)) === "stateless") return noStreamsHere("GET");
  const accept = requireAccept(request, GET_ACCEPTS);
  if (!accept.ok) return errorResponse(accept.error);
  const version = requireProtocolVersion(request);
  if (!version.ok) return errorResponse(version.error);
  const session = requireMcpSessionId(request);
  if (!session.ok) return errorResponse(session.error);
  return sessions.apply({ kind: "stream", sessionId: session.value, lastEventId: requestHeaders(request).get("last-event-id"), owner: caller?.owner });
};

export const deleteMcp: Handler = async (request, { runtime: { sessions } }, caller) => {
  if (classifyBodiless(requestHeaders(request)) === "stateless") return noStreamsHere("DELETE");
  const version = requireProtocolVersion(request);
  if (!version.ok) return errorResponse(version.error);
  const session = requireMcpSessionId(request);
  if (!session.ok) return errorResponse(session.error);
  return sessions.apply({ kind: "end", sessionId: session.value, owner: caller?.owner });
};

/** 2026-07-28 has no GET stream and no sessions to delete (transports spec: 405); clients probe this, so it is answered at once. */
function noStreamsHere(method: string): Response {
  return errorResponse(
    new McpError(405, ErrorCode.InvalidRequest, `Protocol 2026-07-28 has no ${method} on /mcp; POST subscriptions/listen for change notifications`, undefined, { allow: "POST" }),
  );
}

