/**
 * `GET /sse` — the legacy (2024-11-05) HTTP+SSE stream. Mints a session id (128 random bits)
 * and answers with the session's stream, whose first event is `endpoint`, carrying the relative
 * URL to POST messages to. `GET /sse?sessionId=…` reopens the stream of an existing session
 * (after a dropped connection or a deploy), again starting with `endpoint`.
 */
import { errorResponse } from "../http/errorResponse.ts";
import { requireSessionId } from "../http/guards.ts";
import { newSessionId } from "../session/newSessionId.ts";
import { clientKey } from "../shares/clientKey.ts";
import type { Handler } from "./Services.ts";

export const MESSAGE_PATH = "/message";

export const openSse: Handler = async (request, { runtime: { sessions } }, caller, address) => {
  const url = new URL(request.url);
  const reopen = url.searchParams.has("sessionId");
  let sessionId: string;
  if (reopen) {
    const checked = requireSessionId(url);
    if (!checked.ok) return errorResponse(checked.error);
    sessionId = checked.value;
  } else {
    sessionId = newSessionId();
  }
  const shareKey = reopen ? undefined : await clientKey(caller, address());
  return sessions.apply({ kind: "open", sessionId, create: !reopen, endpoint: `${MESSAGE_PATH}?sessionId=${sessionId}`, owner: caller?.owner, shareKey });
};
