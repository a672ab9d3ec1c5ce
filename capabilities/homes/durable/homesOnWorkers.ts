/**
 * `homes()` as the package's `workerd` variant makes it: the same capability, plus its part on
 * Workers — the home class an entry exports as `McpHome` (bound as `MCP_HOME`), and the clients
 * that reach its objects from the Worker, the session objects and the task objects: the homes of
 * the definition, and each client's fair shares counted there. Only a Worker whose definition
 * lists `homes()` ships them.
 */
import type { Extension } from "../../../shared/definition/ServerOptions.ts";
import type { CompiledServer } from "../../../shared/server/CompiledServer.ts";
import type { WorkersPart } from "../../../durable/WorkersPart.ts";
import { HOMES } from "../homes.ts";
import { durableHomes } from "./durableHomes.ts";
import { durableShares } from "./durableShares.ts";
import { HomeObject } from "./HomeObject.ts";
import { deleteUserData, type UserDataEnv } from "./deleteUserData.ts";

/** Where the home objects are bound. */
type HomesEnv = { MCP_HOME?: DurableObjectNamespace<HomeObject> };

const HOMES_ON_WORKERS: WorkersPart = {
  objects: { McpHome: HomeObject },
  homes: ({ MCP_HOME }: HomesEnv, definition: CompiledServer) => MCP_HOME && durableHomes(MCP_HOME, definition),
  shares: ({ MCP_HOME }: HomesEnv) => MCP_HOME && durableShares(MCP_HOME),
  deleteUserData: (env: UserDataEnv, who) => deleteUserData(env, who),
};

/** @example defineServer({ …, tools: [tool({ …, home: "user" })], use: [homes()] }) */
export function homes(): Extension<"McpHome"> {
  return { id: HOMES, workers: HOMES_ON_WORKERS };
}
