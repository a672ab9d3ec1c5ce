/** The Durable Object that hosts a session: the same id always reaches the same object, worldwide. */
import type { Env } from "./Env.ts";

export function sessionStub(env: Env, sessionId: string) {
  return env.MCP_SESSION.get(env.MCP_SESSION.idFromName(sessionId));
}
