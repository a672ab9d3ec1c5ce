/**
 * The Workers runtime: the shared routes with sessions in Durable Objects (one per session id,
 * `MCP_SESSION`) and change fan-out through one Durable Object per watched topic (`MCP_WATCH`;
 * without that binding, within the isolate only).
 */
import { durableBroadcaster } from "../durable/WatchObject.ts";
import { MemoryBroadcaster } from "../shared/broadcast/MemoryBroadcaster.ts";
import { readConfig } from "../shared/config/readConfig.ts";
import type { Runtime } from "../shared/host/Runtime.ts";
import { createRouter } from "../shared/routes/createRouter.ts";
import type { McpServer } from "../shared/server/McpServer.ts";
import type { Env } from "./Env.ts";
import { sessionStub } from "./sessionStub.ts";

export function createWorker(server: McpServer): ExportedHandler<Env> {
  // One in-isolate fallback per Worker, shared by its requests, for deployments without MCP_WATCH.
  let local: MemoryBroadcaster | undefined;
  const runtime: Runtime<Env> = {
    sessions: (env) => ({ session: (id) => sessionStub(env, id) }),
    broadcaster: (env) => (env.MCP_WATCH ? durableBroadcaster(env.MCP_WATCH) : (local ??= new MemoryBroadcaster(readConfig(env).maxQueueBytes))),
  };
  const handle = createRouter(server, runtime);
  return { fetch: (request, env) => handle(request, env) };
}
