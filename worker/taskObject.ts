/**
 * The task Durable Object class for a server whose tools run as tasks (`task` in a tool's
 * definition): export a class extending it as `McpTask`, which wrangler.toml binds as `MCP_TASK`. A
 * call of its own, apart from `createWorker`, so that a Worker without task tools ships neither the
 * task host nor the client that reaches it; calling it also tells the Worker to keep tasks there.
 *
 * @example
 * const worker = createWorker(server);
 * export class McpSession extends worker.McpSession {}
 * export class McpTask extends taskObject(server) {}
 * export default { fetch: worker.fetch };
 */
import { TaskObject, type TaskObjectEnv } from "../durable/TaskObject.ts";
import { durableTasks } from "../durable/durableTasks.ts";
import { taskObjects } from "../durable/taskRegistry.ts";
import { compiledOf, type ServerDefinition } from "../shared/server/ServerDefinition.ts";

export function taskObject(server: ServerDefinition): new (ctx: DurableObjectState, env: TaskObjectEnv) => TaskObject {
  const definition = compiledOf(server, "taskObject");
  taskObjects.host(durableTasks);
  return class McpTask extends TaskObject {
    constructor(ctx: DurableObjectState, env: TaskObjectEnv) {
      super(ctx, env, definition);
    }
  };
}
