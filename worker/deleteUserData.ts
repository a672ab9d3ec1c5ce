/**
 * Deletes everything a user has in this deployment (a data-protection request): their home —
 * every key and SQL table of `home: "user"` definitions, and its alarm — the homes of the handles
 * minted for them, and the sessions and tasks it counts as theirs (each with its storage), found
 * by the same digest of issuer and subject the requests use, so the user need not be signed in.
 * Call it from a route or a scheduled job of your own with the Worker's `env`.
 *
 * @example await deleteUserData(env, { issuer: "https://auth.example.com", subject: "user-123" })
 */
import { ownerOf } from "../shared/auth/Caller.ts";
import { eraseUserHome } from "../capabilities/homes/durable/durableHomes.ts";
import type { HomeObject } from "../capabilities/homes/durable/HomeObject.ts";
import type { SessionObject } from "../durable/SessionObject.ts";
import type { TaskObject } from "../capabilities/tasks/durable/TaskObject.ts";
import type { SessionOperation } from "../shared/host/SessionOperation.ts";

/** The one RPC method used here, typed by itself (the stub's full type is too deep for the checker). */
interface SessionEnd {
  apply(operation: SessionOperation): Promise<unknown>;
}

export interface UserDataEnv {
  MCP_HOME?: DurableObjectNamespace<HomeObject>;
  MCP_SESSION?: DurableObjectNamespace<SessionObject>;
  MCP_TASK?: DurableObjectNamespace<TaskObject>;
}

/** Resolves with what was deleted besides the home: the user's live sessions and tasks. */
export async function deleteUserData(env: UserDataEnv, who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }> {
  if (!env.MCP_HOME) throw new TypeError("deleteUserData needs the MCP_HOME binding, where users' homes live");
  const owner = await ownerOf(who);
  const held = await eraseUserHome(env.MCP_HOME, owner);
  const { MCP_SESSION: sessions, MCP_TASK: tasks } = env;
  // Each ends only if it is this owner's: the objects check, as for any request of theirs.
  await Promise.all([
    ...(sessions ? held.session.map((sessionId) => (sessions.get(sessions.idFromName(sessionId)) as unknown as SessionEnd).apply({ kind: "end", sessionId, owner })) : []),
    ...(tasks ? held.task.map((taskId) => tasks.get(tasks.idFromName(taskId)).erase(owner)) : []),
  ]);
  return { sessions: held.session.length, tasks: held.task.length };
}
