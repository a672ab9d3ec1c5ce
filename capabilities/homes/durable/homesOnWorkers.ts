/**
 * `homes()` as the package's `workerd` variant makes it: the same capability, plus its part on
 * Workers — the home class an entry exports as `McpHome` (bound as `MCP_HOME`), and the clients
 * that reach its objects from the Worker, the session objects and the task objects: the homes of
 * the definition, and each client's fair shares counted there. What the Worker serves outside its
 * routes (`serveMessages` over a socket) reaches the same objects, through its `local` part. Only a
 * Worker whose definition lists `homes()` ships them.
 */
import type { Extension } from "../../../shared/definition/ServerOptions.ts";
import type { CompiledServer } from "../../../shared/server/CompiledServer.ts";
import type { LocalHomesPart } from "../../../shared/home/LocalHomesPart.ts";
import type { WorkersPart } from "../../../durable/WorkersPart.ts";
import { HOMES_CAPABILITY } from "../../../shared/definition/Home.ts";
import { durableHomes } from "./durableHomes.ts";
import { durableShares } from "./durableShares.ts";
import { HomeObject } from "./HomeObject.ts";
import { deleteUserData, type UserDataEnv } from "./deleteUserData.ts";

/** Where the home objects are bound. */
type HomesEnv = { MCP_HOME?: DurableObjectNamespace<HomeObject> };

/** The definition's homes: one object each, bound as `MCP_HOME`. */
const homesIn = ({ MCP_HOME }: HomesEnv, definition: CompiledServer) => MCP_HOME && durableHomes(MCP_HOME, definition);

const HOMES_ON_WORKERS: WorkersPart = {
  objects: { McpHome: HomeObject },
  homes: homesIn,
  shares: ({ MCP_HOME }: HomesEnv) => MCP_HOME && durableShares(MCP_HOME),
  deleteUserData: (env: UserDataEnv, who) => deleteUserData(env, who),
};

/** What a Worker serves itself, outside its routes (`serveMessages` over a socket): the same home objects; none where `MCP_HOME` is unbound. */
const LOCAL_ON_WORKERS: LocalHomesPart = {
  homes({ server }, env) {
    const homes = homesIn(env as HomesEnv, server);
    // The objects outlive the connection: closing it stops nothing.
    return homes && { ...homes, close() {} };
  },
};

/** @example defineServer({ …, tools: [tool({ …, home: "user" })], use: [homes()] }) */
export function homes(): Extension<"McpHome"> {
  return { id: HOMES_CAPABILITY, workers: HOMES_ON_WORKERS, local: LOCAL_ON_WORKERS };
}
