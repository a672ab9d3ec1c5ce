/**
 * `POST /message?sessionId=…` — a client message for a legacy HTTP+SSE session. Every check
 * that needs no session state runs here, in the Worker, before the Durable Object hop, in this
 * order: session id (400), content type (415), body size while reading (413), UTF-8 and JSON
 * (400, -32700), nesting and JSON-RPC shape (400, -32600). The session then answers 202
 * (replies follow on the stream), 404 (unknown session) or 429 (queue full).
 */
import { errorResponse } from "../http/errorResponse.ts";
import { requireSessionId } from "../http/guards.ts";
import { readMessages } from "../http/readMessages.ts";
import type { Sessions } from "../host/SessionOperation.ts";

export async function postMessage(request: Request, sessions: Sessions, maxBodyBytes: number): Promise<Response> {
  const session = requireSessionId(new URL(request.url));
  if (!session.ok) return errorResponse(session.error);
  const parsed = await readMessages(request, maxBodyBytes);
  if (!parsed.ok) return errorResponse(parsed.error, parsed.id);
  return sessions.apply({ kind: "deliver", sessionId: session.value, messages: parsed.value.messages, size: parsed.value.size });
}
