/**
 * The Workers runtime: the shared routes with sessions in Durable Objects (one per session id,
 * `MCP_SESSION`). One call wires a server definition into the `fetch` handler and the session
 * class wrangler.toml binds. What only some servers need comes with a call of its own, so that a
 * Worker without it ships none of its code: `watchObject()` for change fan-out through one Durable
 * Object per watched topic (`MCP_WATCH`; without it, within the isolate only), `taskObject(server)`
 * for tools declared with `task` (`MCP_TASK`), `homeObject(server)` for definitions with homes of
 * their own (`MCP_HOME`). The entry exports classes, not consts: the `Env` that `wrangler types`
 * generates names each bound class's type (`import("./worker").McpSession`).
 *
 * @example
 * // worker.ts, wrangler.toml's `main`
 * import { createWorker, taskObject, watchObject } from "durable-mcp/cloudflare";
 * import server from "./server.ts";
 *
 * const worker = createWorker(server);
 * export class McpSession extends worker.McpSession {}
 * export class McpWatch extends watchObject() {} // only where lists or resources can change
 * export class McpTask extends taskObject(server) {} // only with tools declared with `task`
 * export default { fetch: worker.fetch };
 */
import { waitUntil } from "cloudflare:workers";
import { MemoryBroadcaster } from "../shared/broadcast/MemoryBroadcaster.ts";
import type { SessionOperation, Sessions } from "../shared/host/SessionOperation.ts";
import { type Answer, toResponse } from "../shared/http/Answer.ts";
import { createRouter, type RouterOptions } from "../shared/routes/createRouter.ts";
import { compiledOf, type ServerDefinition } from "../shared/server/ServerDefinition.ts";
import { SessionObject, type SessionObjectEnv } from "../durable/SessionObject.ts";
import { OPERATION_HEADER, RELAY_URL } from "../durable/relayProtocol.ts";
import { SSE_HEADERS } from "../shared/outbound/encodeSse.ts";
import { nativeBody } from "./nativeBody.ts";
import { relayToClient } from "./relayToClient.ts";
import { watchObjects } from "../durable/watchRegistry.ts";
import { taskObjects } from "../durable/taskRegistry.ts";
import type { TaskObject } from "../durable/TaskObject.ts";
import type { HomeObject } from "../durable/HomeObject.ts";
import { remoteHomes, userDataEraser } from "../durable/homeRegistry.ts";
import { workerAddress } from "./workerAddress.ts";

/** The Worker's bindings (wrangler.toml); every other variable is read by `readConfig` or your handlers (`ctx.env`). */
export type WorkerEnv = SessionObjectEnv & {
  /** One object per user and per handle (`home: "user"` or a handle); needed only by servers whose definitions declare such homes. */
  MCP_HOME?: DurableObjectNamespace<HomeObject>;
  MCP_SESSION: DurableObjectNamespace<SessionObject>;
  /** One object per task (tasks extension); needed only by servers with tools that run as tasks. */
  MCP_TASK?: DurableObjectNamespace<TaskObject>;
  /** Seals 2026-07-28 `requestState`; at least 32 characters. Set with `wrangler secret put`. */
  REQUEST_STATE_SECRET?: string;
};

export interface McpWorker<E extends WorkerEnv> {
  fetch(request: Request, env: E, ctx: ExecutionContext): Promise<Response>;
  /** Export a class of this name extending it (`export class McpSession extends worker.McpSession {}`): wrangler.toml binds it as `MCP_SESSION`. */
  McpSession: new (ctx: DurableObjectState, env: SessionObjectEnv) => SessionObject;
  /**
   * Deletes everything a user has in this deployment (a data-protection request), as
   * `server.deleteUserData(who)` does on Deno and Node: their home, the homes of the handles minted
   * for them, and their live sessions and tasks. Takes the Worker's `env` (from a route or a
   * scheduled handler of yours), where the objects are bound; needs the home class (`homeObject`).
   *
   * @example await worker.deleteUserData(env, { issuer: "https://auth.example.com", subject: "user-123" })
   */
  deleteUserData(env: E, who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }>;
}

/**
 * @param options `before`: checks of yours run before any MCP route (return a Response to answer
 *   the request yourself); `routes`: routes of your own, tried first.
 */
export function createWorker<E extends WorkerEnv = WorkerEnv>(server: ServerDefinition, options: RouterOptions<E> = {}): McpWorker<E> {
  const definition = compiledOf(server, "createWorker");
  // One in-isolate fallback per Worker, shared by its requests, for deployments without MCP_WATCH.
  let local: MemoryBroadcaster | undefined;
  const handle = createRouter<E>(
    definition,
    {
      sessions: (env, { config }) => durableSessions(env.MCP_SESSION, config.keepaliveIntervalMs),
      // Without `watchObject()` in the entry (or MCP_WATCH bound), a listener hears the changes of its own isolate only.
      broadcaster: (env, config) => watchObjects.remote(env.MCP_WATCH, config.maxQueueBytes) ?? (local ??= new MemoryBroadcaster(config.maxQueueBytes)),
      tasks: (env, { config }) => taskObjects.remote(env.MCP_TASK, config.maxQueueBytes),
      homes: (env) => remoteHomes(definition, env.MCP_HOME),
      // Telemetry's exports outlive the request that ended the spans: the isolate stays for them.
      keepAlive: waitUntil,
      // CF-Connecting-IP where Cloudflare's edge wrote it, else workerd's own peer: never a header the client chose.
      clientAddress: workerAddress,
    },
    options,
  );
  class McpSession extends SessionObject {
    constructor(ctx: DurableObjectState, env: SessionObjectEnv) {
      super(ctx, env, definition);
    }
  }
  return {
    fetch: async (request, env, ctx) => nativeBody(await handle(request, env, ctx), ctx),
    McpSession,
    deleteUserData: async (env, who) => {
      const erase = userDataEraser(definition);
      if (!erase) throw new TypeError("deleteUserData needs homeObject(server), bound as MCP_HOME");
      return erase(env, who);
    },
  };
}

/**
 * Sessions in Durable Objects: the same id always reaches the same object, worldwide. A
 * long-lived stream (`open`, `stream`) is relayed: the object answers a WebSocket upgrade and
 * this Worker holds the client's response (`relayToClient`), so the object can hibernate while
 * the client idles. Everything else is one RPC call whose answer comes back by value.
 */
function durableSessions(namespace: DurableObjectNamespace<SessionObject>, keepaliveMs: number): Sessions {
  return {
    remote: true,
    apply: async (operation: SessionOperation) => {
      const stub = namespace.get(namespace.idFromName(operation.sessionId));
      if (operation.kind !== "open" && operation.kind !== "stream") return toResponse((await stub.apply(operation)) as Answer);
      const upgraded = await stub.fetch(RELAY_URL, { headers: { upgrade: "websocket", [OPERATION_HEADER]: encodeURIComponent(JSON.stringify(operation)) } });
      if (!upgraded.webSocket) return upgraded;
      return new Response(relayToClient(upgraded.webSocket, keepaliveMs), { headers: SSE_HEADERS });
    },
  };
}
