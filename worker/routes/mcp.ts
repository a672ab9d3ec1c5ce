/**
 * `/mcp` — the Streamable HTTP endpoint (protocol 2025-03-26 to 2025-11-25). Stateless checks
 * run here, before the Durable Object hop: Accept (406), session header (400 missing, 404 not
 * ours), protocol version header (400), content type (415), body size (413), JSON and JSON-RPC
 * shape (400). `initialize` mints the session id; everything else goes to that session's object.
 */
import type { Config } from "../../shared/config/readConfig.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { errorResponse } from "../../shared/http/errorResponse.ts";
import { requireAccept, requireMcpSessionId } from "../../shared/http/guards.ts";
import { readMessages } from "../../shared/http/readMessages.ts";
import { isRequest } from "../../shared/jsonrpc/messages.ts";
import { protocolVersionHeader } from "../../shared/protocol/versions.ts";
import { newSessionId } from "../../shared/session/newSessionId.ts";
import type { Env } from "../Env.ts";
import { sessionStub } from "../sessionStub.ts";

const POST_ACCEPTS = ["application/json", "text/event-stream"];
const GET_ACCEPTS = ["text/event-stream"];

export async function postMcp(request: Request, env: Env, config: Config): Promise<Response> {
  const accept = requireAccept(request, POST_ACCEPTS);
  if (accept) return errorResponse(accept);
  const version = protocolVersionHeader(request);
  if (!version.ok) return errorResponse(new McpError(400, ErrorCode.InvalidRequest, version.message));
  const parsed = await readMessages(request, config.maxBodyBytes);
  if (!parsed.ok) return errorResponse(parsed.error, parsed.id);
  const { messages } = parsed;

  if (parsed.batch && version.version !== "2025-03-26") {
    return errorResponse(McpError.invalidRequest(`JSON-RPC batches are not part of protocol ${version.version}; send one message per POST`));
  }
  const initialize = messages.find((m) => isRequest(m) && m.method === "initialize");
  if (initialize) {
    if (messages.length > 1) return errorResponse(McpError.invalidRequest("initialize must be sent alone, not in a batch"));
    if (request.headers.has("mcp-session-id")) {
      return errorResponse(McpError.invalidRequest("initialize starts a new session: send it without Mcp-Session-Id"));
    }
    const sessionId = newSessionId();
    return sessionStub(env, sessionId).post(sessionId, messages, true);
  }
  const session = requireMcpSessionId(request);
  if (!session.ok) return errorResponse(session.error);
  return sessionStub(env, session.sessionId).post(session.sessionId, messages, false);
}

export async function getMcp(request: Request, env: Env): Promise<Response> {
  const failed = requireAccept(request, GET_ACCEPTS) ?? versionError(request);
  if (failed) return errorResponse(failed);
  const session = requireMcpSessionId(request);
  if (!session.ok) return errorResponse(session.error);
  return sessionStub(env, session.sessionId).listen(session.sessionId, request.headers.get("last-event-id"));
}

export async function deleteMcp(request: Request, env: Env): Promise<Response> {
  const session = requireMcpSessionId(request);
  if (!session.ok) return errorResponse(session.error);
  return sessionStub(env, session.sessionId).terminate(session.sessionId);
}

function versionError(request: Request): McpError | undefined {
  const version = protocolVersionHeader(request);
  return version.ok ? undefined : new McpError(400, ErrorCode.InvalidRequest, version.message);
}
