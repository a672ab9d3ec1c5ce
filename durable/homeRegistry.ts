/**
 * Which server definitions have their homes hosted by home objects: `homeObject(server)` (the
 * entry's `McpHome`) says so for its definition, and the Worker, the session objects and the task
 * objects ask here for the `Homes` that reaches them, and for the `Shares` that count each
 * client's sessions and tasks there. So a Worker whose entry does not export the home class ships
 * none of the code that calls it (pay for what you use), and one whose definitions
 * declare homes without it is told so (`homeProblem`).
 */
import type { Homes } from "../shared/home/Homes.ts";
import type { Shares } from "../shared/shares/Shares.ts";
import type { CompiledServer } from "../shared/server/CompiledServer.ts";
import type { HomeObject } from "./HomeObject.ts";

/** How requests reach the home objects of one namespace: their homes, and the fair shares counted there. */
export interface HomeObjects {
  homes(namespace: DurableObjectNamespace<HomeObject>): Homes;
  shares(namespace: DurableObjectNamespace<HomeObject>): Shares;
  /** Deletes a user's home, handles, sessions and tasks (`worker.deleteUserData`), given the Worker's env. */
  deleteUserData(env: object, who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }>;
}

const hosted = new WeakMap<CompiledServer, HomeObjects>();

/** Called by `homeObject(definition)`: requests of this definition reach their homes and fair shares through `objects`. */
export function hostHomes(definition: CompiledServer, objects: HomeObjects): void {
  hosted.set(definition, objects);
}

/** Fair shares in the home objects, where the entry hosts them and `MCP_HOME` is bound; else undefined (no per-client counts). */
export function remoteShares(definition: CompiledServer, namespace: DurableObjectNamespace<HomeObject> | undefined): Shares | undefined {
  const objects = hosted.get(definition);
  return namespace && objects ? objects.shares(namespace) : undefined;
}

/** What erases a user's data for this definition: undefined where the entry hosts no homes, so a Worker without them ships none of that code. */
export function userDataEraser(definition: CompiledServer): HomeObjects["deleteUserData"] | undefined {
  return hosted.get(definition)?.deleteUserData;
}

/** The homes of this definition in this environment; undefined where the entry hosts none, or `MCP_HOME` is not bound. */
export function remoteHomes(definition: CompiledServer, namespace: DurableObjectNamespace<HomeObject> | undefined): Homes | undefined {
  const objects = hosted.get(definition);
  return namespace && objects ? objects.homes(namespace) : undefined;
}
