/**
 * `POST /message?sessionId=…` — a client message for a legacy HTTP+SSE session. Every check
 * that needs no session state runs here, in the Worker, before the Durable Object hop, in this
 * order: session id (400), content type (415), body size while reading (413), UTF-8 and JSON
 * (400, -32700), nesting and JSON-RPC shape (400, -32600). The session object then answers 202
 * (replies follow on the stream), 404 (unknown session) or 429 (queue full).
 */
import { requireSessionId } from "../http/guards.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { readMessages } from "../http/readMessages.ts";
import type { Config } from "../config/readConfig.ts";
import type { SessionHost } from "../host/Runtime.ts";

export async function postMessage(request: Request, sessions: SessionHost, config: Config): Promise<Response> {
  const session = requireSessionId(new URL(request.url));
  if (!session.ok) return errorResponse(session.error);
  const parsed = await readMessages(request, config.maxBodyBytes);
  if (!parsed.ok) return errorResponse(parsed.error, parsed.id);

  const outcome = await sessions.session(session.sessionId).receive(session.sessionId, parsed.messages);
  const headers = new Headers(outcome.headers);
  if (outcome.body !== undefined) headers.set("content-type", "application/json");
  return new Response(outcome.body ?? null, { status: outcome.status, headers });
}
