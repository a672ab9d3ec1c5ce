/**
 * Deletes everything a user has in this deployment (a data-protection request; `worker.deleteUserData`,
 * see createWorker): their home — every key and SQL table of `home: "user"` definitions, and its
 * alarm — the homes of the handles minted for them, and the sessions and tasks it counts as
 * theirs (each with its storage), found by the same digest of issuer and subject the requests
 * use, so the user need not be signed in. Brought by `homes()`, so a Worker without homes ships none of it.
 */
import { ownerOf } from "../../../shared/auth/Caller.ts";
import type { SessionOperation } from "../../../shared/host/SessionOperation.ts";
import { eraseUserHome } from "./durableHomes.ts";
import type { HomeObject } from "./HomeObject.ts";

/** The one RPC method reached on a session object, typed by itself (the stub's full type is too deep for the checker). */
interface SessionEnd {
  apply(operation: SessionOperation): Promise<unknown>;
}

/** The one RPC method reached on a task object (the tasks capability's class, which this one does not import). */
interface TaskErase {
  erase(owner: string): Promise<unknown>;
}

/** The bindings a user's erasure reaches: their home and handles, their sessions and tasks. */
export interface UserDataEnv {
  MCP_HOME?: DurableObjectNamespace<HomeObject>;
  MCP_SESSION?: DurableObjectNamespace;
  MCP_TASK?: DurableObjectNamespace;
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
    ...(tasks ? held.task.map((taskId) => (tasks.get(tasks.idFromName(taskId)) as unknown as TaskErase).erase(owner)) : []),
  ]);
  return { sessions: held.session.length, tasks: held.task.length };
}
