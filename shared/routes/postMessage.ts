/**
 * `POST /message?sessionId=…` — a client message for a legacy HTTP+SSE session. Every check
 * that needs no session state runs here, in the Worker, before the Durable Object hop, in this
 * order: session id (400), content type (415), body size while reading (413), UTF-8 and JSON
 * (400, -32700), nesting and JSON-RPC shape (400, -32600). The session is handed the bytes as
 * read and the ids of the requests, not the parse (see `SessionOperation`); it answers 202
 * (replies follow on the stream), 404 (unknown session, or another user's) or 429 (queue full).
 * Where tokens are checked, a batch naming a definition whose scopes the token lacks is 403 here,
 * over HTTP, rather than an error on the stream: that is where a client looks for a step-up.
 */
import { errorResponse } from "../http/errorResponse.ts";
import { requireSessionId } from "../http/guards.ts";
import { readMessages } from "../http/readMessages.ts";
import { requestIds } from "../jsonrpc/messages.ts";
import { type Handler, refuseScopes } from "./Services.ts";
import { startHop } from "./hopSpan.ts";

export const postMessage: Handler = async (request, services, caller, address) => {
  const session = requireSessionId(new URL(request.url));
  if (!session.ok) return errorResponse(session.error);
  const parsed = await readMessages(request, services.runtime.config.maxBodyBytes);
  if (!parsed.ok) return errorResponse(parsed.error, parsed.id);
  const { messages, size, body } = parsed.value;
  const denied = refuseScopes(request, messages, services, caller);
  if (denied) return denied;
  // HTTP+SSE is one revision, 2024-11-05: the hop's span says so without asking the session.
  const hop = startHop(services, request, messages, "2024-11-05", session.value, address);
  const answered = services.runtime.sessions.apply({ kind: "deliver", sessionId: session.value, body, requests: requestIds(messages), size, owner: caller?.owner, auth: caller?.auth, trace: hop?.trace });
  return hop ? hop.end(answered) : answered;
};
