/**
 * The home Durable Object class for a server whose definitions keep state in homes of their own
 * (`home: "user"` or a handle): export a class extending it as `McpHome`, which wrangler.toml binds as `MCP_HOME`.
 * A call of its own, apart from `createWorker`, so that a Worker without homes does not ship the
 * home host; calling it also tells the Worker and its objects to run those definitions there.
 *
 * @example
 * const worker = createWorker(server);
 * export class McpSession extends worker.McpSession {}
 * export class McpHome extends homeObject(server) {}
 * export default { fetch: worker.fetch };
 */
import { durableHomes } from "../durable/durableHomes.ts";
import { durableShares } from "../durable/durableShares.ts";
import { HomeObject, type HomeObjectEnv } from "../durable/HomeObject.ts";
import { hostHomes } from "../durable/homeRegistry.ts";
import { deleteUserData } from "./deleteUserData.ts";
import { compiledOf, type ServerDefinition } from "../shared/server/ServerDefinition.ts";

export function homeObject(server: ServerDefinition): new (ctx: DurableObjectState, env: HomeObjectEnv) => HomeObject {
  const definition = compiledOf(server, "homeObject");
  hostHomes(definition, { homes: (namespace) => durableHomes(namespace, definition), shares: durableShares, deleteUserData });
  return class McpHome extends HomeObject {
    constructor(ctx: DurableObjectState, env: HomeObjectEnv) {
      super(ctx, env, definition, durableShares);
    }
  };
}
