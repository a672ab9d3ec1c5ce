/**
 * What claude.ai does: it never echoes `Mcp-Session-Id`, and opens with
 * `initialize` before nearly every call. So: `ROUNDS` times, `initialize`, `notifications/initialized`
 * and `tools/list`, the last two with no session header. A server that insists on its session id
 * answers 400 or 404 there, and claude.ai drops the call without telling the server.
 */
import { type CheckTarget } from "../wire/CheckTarget.ts";
import { counted, fail, type Finding, pass } from "../wire/Finding.ts";
import { closeSession, describeAnswer, initialize, legacyMessage } from "../wire/requests.ts";

const PROBE = "per-call";
/** How many initialize-then-call rounds: more than one, since the second is where a session design breaks. */
const ROUNDS = 3;
const WHY = "claude.ai does not echo Mcp-Session-Id and re-initializes before nearly every call; it drops a refused call without telling the server. Serve requests that carry no session id.";

export async function perCallProbe(target: CheckTarget): Promise<Finding[]> {
  const sessions = new Set<string>();
  let tools = 0;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const opened = await initialize(target);
      if (!opened.message?.result) return [fail(PROBE, `round ${round}: initialize got ${describeAnswer(opened)}`, "2025 clients open every connection with initialize.")];
      const id = opened.headers.get("mcp-session-id");
      if (id) sessions.add(id);
      const initialized = await legacyMessage(target, "notifications/initialized", null, true);
      if (initialized.status >= 400) return [fail(PROBE, `round ${round}: notifications/initialized without Mcp-Session-Id got ${describeAnswer(initialized)}`, WHY)];
      const listed = await legacyMessage(target, "tools/list", null);
      const list = listed.message?.result?.tools;
      if (!Array.isArray(list)) return [fail(PROBE, `round ${round}: tools/list without Mcp-Session-Id got ${describeAnswer(listed)}`, WHY)];
      tools = list.length;
    }
  } finally {
    await Promise.all([...sessions].map((id) => closeSession(target, id)));
  }
  return [pass(PROBE, `${ROUNDS} rounds of initialize then tools/list with no session id: ${counted(tools, "tool")} each time (${counted(sessions.size, "session id")} issued)`)];
}
