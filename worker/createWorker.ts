/**
 * The Workers runtime: the shared routes with sessions in Durable Objects (one per session id,
 * `MCP_SESSION`). One call wires a server definition into the `fetch` handler and the session
 * class wrangler.toml binds. The capabilities in the definition's `use` bring their own classes,
 * offered beside `McpSession` (`tasks()`: `McpTask`, bound as `MCP_TASK`; `watch()`: `McpWatch`,
 * change fan-out through one Durable Object per watched topic, `MCP_WATCH`; without it, within the
 * isolate only; `homes()`: `McpHome`, the homes of definitions that have them, `MCP_HOME`), so
 * that a Worker without one ships none of its code. The entry exports classes, not consts: the
 * `Env` that `wrangler types` generates names each bound class's type (`import("./worker").McpSession`).
 *
 * @example
 * // worker.ts, wrangler.toml's `main`
 * import { createWorker } from "durable-mcp/cloudflare";
 * import server from "./server.ts";
 *
 * const worker = createWorker(server);
 * export class McpSession extends worker.McpSession {}
 * export class McpWatch extends worker.McpWatch {} // only where `use` lists watch()
 * export class McpTask extends worker.McpTask {} // only where `use` lists tasks()
 * export class McpHome extends worker.McpHome {} // only where `use` lists homes()
 * export default { fetch: worker.fetch };
 */
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
import type { TaskObject, TaskObjectEnv } from "../capabilities/tasks/durable/TaskObject.ts";
import type { WatchObject } from "../capabilities/watch/durable/WatchObject.ts";
import { type ObjectClass, workersPart, type WorkersPart } from "../durable/WorkersPart.ts";
import type { HomeObject, HomeObjectEnv } from "../capabilities/homes/durable/HomeObject.ts";
import { workerAddress } from "./workerAddress.ts";
import { workersRuntime } from "../durable/workersRuntime.ts";

/** The Worker's bindings (wrangler.toml); every other variable is read by `readConfig` or your handlers (`ctx.env`). */
export type WorkerEnv = SessionObjectEnv & {
  /** One object per user and per handle (`home: "user"` or a handle); needed only by servers whose definitions declare such homes. */
  MCP_HOME?: DurableObjectNamespace<HomeObject>;
  MCP_SESSION: DurableObjectNamespace<SessionObject>;
  /** One object per task (tasks extension); needed only by servers with tools that run as tasks. */
  MCP_TASK?: DurableObjectNamespace<TaskObject>;
  /** One object per watched topic (`watch()`): change fan-out across isolates. */
  MCP_WATCH?: DurableObjectNamespace<WatchObject>;
  /** Seals 2026-07-28 `requestState`; at least 32 characters. Set with `wrangler secret put`. */
  REQUEST_STATE_SECRET?: string;
};

/**
 * The Durable Object classes the capabilities bring, by the name an entry exports each as and
 * wrangler.toml binds: a Worker offers those of its definition's `use` list.
 */
export interface ObjectClasses {
  /** `tasks()`: one object per task, bound as `MCP_TASK`. */
  McpTask: new (ctx: DurableObjectState, env: TaskObjectEnv) => TaskObject;
  /** `watch()`: one object per watched topic, bound as `MCP_WATCH`. */
  McpWatch: typeof WatchObject;
  /** `homes()`: one object per user and per handle, bound as `MCP_HOME`. */
  McpHome: new (ctx: DurableObjectState, env: HomeObjectEnv) => HomeObject;
}

/** A Worker for a definition whose capabilities bring the classes `Objects` (`createWorker`). */
export type McpWorker<E extends WorkerEnv, Objects extends string = never> = {
  fetch(request: Request, env: E, ctx: ExecutionContext): Promise<Response>;
  /** Export a class of this name extending it (`export class McpSession extends worker.McpSession {}`): wrangler.toml binds it as `MCP_SESSION`. */
  McpSession: new (ctx: DurableObjectState, env: SessionObjectEnv) => SessionObject;
  /**
   * Deletes everything a user has in this deployment (a data-protection request), as
   * `server.deleteUserData(who)` does on Deno and Node: their home, the homes of the handles minted
   * for them, and their live sessions and tasks. Takes the Worker's `env` (from a route or a
   * scheduled handler of yours), where the objects are bound; needs `homes()` in the definition's `use`.
   *
   * @example await worker.deleteUserData(env, { issuer: "https://auth.example.com", subject: "user-123" })
   */
  deleteUserData(env: E, who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }>;
} & Pick<ObjectClasses, Objects & keyof ObjectClasses>;

/**
 * @param options `before`: checks of yours run before any MCP route (return a Response to answer
 *   the request yourself); `routes`: routes of your own, tried first.
 */
export function createWorker<E extends WorkerEnv = WorkerEnv, Objects extends string = never>(server: ServerDefinition<Objects>, options: RouterOptions<E> = {}): McpWorker<E, Objects> {
  const definition = compiledOf(server, "createWorker");
  const part = workersPart(definition);
  // One in-isolate fallback per Worker, shared by its requests, for deployments without MCP_WATCH.
  let local: MemoryBroadcaster | undefined;
  const handle = createRouter<E>(
    definition,
    (env) => {
      const runtime = workersRuntime(definition, env, part);
      const { config } = runtime;
      return {
        ...runtime,
        // Without `watch()` in the definition's list (or MCP_WATCH bound), a listener hears the changes of its own isolate only.
        broadcast: runtime.broadcast ?? (local ??= new MemoryBroadcaster(config.maxQueueBytes)),
        sessions: durableSessions(env.MCP_SESSION, config.keepaliveIntervalMs),
        // CF-Connecting-IP where Cloudflare's edge wrote it, else workerd's own peer: never a header the client chose.
        clientAddress: workerAddress,
      };
    },
    options,
  );
  // Each class the entry exports serves this definition: the session class, and those of its capabilities.
  const bound = (Base: ObjectClass) =>
    class extends Base {
      constructor(ctx: DurableObjectState, env: WorkerEnv) {
        super(ctx, env, definition);
      }
    };
  const worker: Record<string, unknown> = { fetch: async (request: Request, env: E, ctx: ExecutionContext) => nativeBody(await handle(request, env, ctx), ctx), McpSession: bound(SessionObject) };
  for (const capability of definition.use) {
    const objects = (capability.workers as WorkersPart | undefined)?.objects ?? {};
    for (const name in objects) worker[name] = bound(objects[name]!);
  }
  worker.deleteUserData = async (env: E, who: { issuer: string; subject: string }) => {
    if (!part.deleteUserData) throw new TypeError('deleteUserData needs homes() in the definition\'s "use", and its class bound as MCP_HOME');
    return part.deleteUserData(env, who);
  };
  return worker as McpWorker<E, Objects>;
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
