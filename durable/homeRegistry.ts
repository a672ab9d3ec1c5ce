/**
 * Which server definitions have their homes hosted by home objects: `homeObject(server)` (the
 * entry's `McpHome`) says so for its definition, and the Worker, the session objects and the task
 * objects ask here for the `Homes` that reaches them, and for the `Shares` that count each
 * client's sessions and tasks there. So a Worker whose entry does not export the home class ships
 * none of the code that calls it (issue 23: pay for what you use), and one whose definitions
 * declare homes without it is told so (`homeProblem`).
 */
import type { Homes } from "../shared/home/Homes.ts";
import type { Shares } from "../shared/shares/Shares.ts";
import { durableShares } from "./durableShares.ts";
import type { ServerDefinition } from "../shared/server/ServerDefinition.ts";
import type { HomeObject } from "./HomeObject.ts";

type HomesOn = (namespace: DurableObjectNamespace<HomeObject>) => Homes;

const hosted = new WeakMap<ServerDefinition, HomesOn>();

/** Called by `homeObject(definition)`: requests of this definition reach their homes through `homesOn`. */
export function hostHomes(definition: ServerDefinition, homesOn: HomesOn): void {
  hosted.set(definition, homesOn);
}

/** Fair shares in the home objects, where the entry hosts them and `MCP_HOME` is bound; else undefined (no per-client counts). */
export function remoteShares(definition: ServerDefinition, namespace: DurableObjectNamespace<HomeObject> | undefined): Shares | undefined {
  return namespace && hosted.has(definition) ? durableShares(namespace) : undefined;
}

/** The homes of this definition in this environment; undefined where the entry hosts none, or `MCP_HOME` is not bound. */
export function remoteHomes(definition: ServerDefinition, namespace: DurableObjectNamespace<HomeObject> | undefined): Homes | undefined {
  const homesOn = hosted.get(definition);
  return namespace && homesOn ? homesOn(namespace) : undefined;
}
