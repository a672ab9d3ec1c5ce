/**
 * The task Durable Object (tasks extension): one instance per task, found by `idFromName(taskId)`
 * — the extension routes every task method by its id "so load balancers can route to the
 * instance holding its state", and here the id is the route. It hosts a runtime-agnostic
 * `TaskHost` (the state machine, its storage and its runs) and is the only place that knows
 * about Durable Objects.
 *
 * Runs happen in `alarm()`: the host schedules its wakeups as the object's alarm, so a run is an
 * alarm invocation, which keeps the object in memory until the handler finishes without any
 * request holding it (at most 15 minutes of wall time: TASK_TIMEOUT_MS is capped at 14). While
 * a run is under way the alarm is held a lease ahead; a deploy, a crash or a reset that kills the run
 * leaves that alarm set, and it starts the handler again (`TaskHost`: at least once). Waiting for
 * input or for its TTL, a task holds no run and no timer: the object is evicted, and its alarm
 * brings it back.
 *
 * Listeners (`subscriptions/listen` with `taskIds`) are WebSockets this object accepts for
 * hibernation, as a watch object does: each change is one send per listener, and a task nobody
 * watches sends nothing. At the TTL the last alarm deletes every key and closes them.
 *
 * Persisted: the task's keys, laid out in `TaskHost.ts`, and its alarm. Only in memory: the run
 * under way; the listeners' sockets are the runtime's, kept through hibernation.
 *
 * Cost: a task is one `create` call, one alarm per run (plus a lease renewal every third of
 * TASK_LEASE_MS while it runs), one call per `tasks/get`, `tasks/update` or `tasks/cancel`, and at
 * most four stored values of at most 1 MiB each, all deleted at the TTL.
 */
import { DurableObject } from "cloudflare:workers";
import { ErrorCode } from "../../../shared/errors/errorCodes.ts";
import { McpError } from "../../../shared/errors/McpError.ts";
import { errorResponse } from "../../../shared/http/errorResponse.ts";
import { notification } from "../../../shared/jsonrpc/messages.ts";
import type { Result } from "../../../shared/definition/Method.ts";
import type { ServerEnv } from "../../../shared/definition/RequestContext.ts";
import type { CompiledServer } from "../../../shared/server/CompiledServer.ts";
import { TaskHost } from "../TaskHost.ts";
import type { TaskStart } from "../../../shared/tasks/TaskState.ts";
import { durableStorage } from "../../../durable/durableStorage.ts";
import { closeAll, closeBack, sendLine } from "../../../durable/sockets.ts";
import { OWNER_HEADER } from "./taskProtocol.ts";
import { type Settled, settle } from "../../../durable/settled.ts";
import { workersRuntime } from "../../../durable/workersRuntime.ts";

/** What the task object reads from its environment. */
export type TaskObjectEnv = ServerEnv;

const TASK_GONE = "task-gone";

/**
 * One server definition's task class. `createWorker(server).McpTask` is the subclass wrangler.toml binds
 * (`McpTask`, as `MCP_TASK`); you rarely extend this yourself.
 */
export class TaskObject extends DurableObject<TaskObjectEnv> {
  readonly #host: TaskHost;

  constructor(ctx: DurableObjectState, env: TaskObjectEnv, definition: CompiledServer) {
    super(ctx, env);
    // What the definition's capabilities bring here (`watch()`: where `ctx.resourceUpdated` and `ctx.listChanged` fan out; without it, nowhere).
    this.#host = new TaskHost({
      ...workersRuntime(definition, env),
      store: durableStorage(ctx.storage),
      schedule: (at) => (at === undefined ? ctx.storage.deleteAlarm() : ctx.storage.setAlarm(at)),
      publish: (task) => sendLine(ctx.getWebSockets(), notification("notifications/tasks", task)),
      gone: () => closeAll(ctx.getWebSockets(), TASK_GONE),
    });
  }

  create(start: TaskStart): Promise<Settled<Result>> {
    return settle(this.#host.create(start));
  }

  get(owner: string | undefined): Promise<Settled<Result | undefined>> {
    return settle(this.#host.get(owner));
  }

  update(owner: string | undefined, responses: Record<string, unknown>): Promise<Settled<boolean>> {
    return settle(this.#host.update(owner, responses));
  }

  cancel(owner: string | undefined): Promise<Settled<boolean>> {
    return settle(this.#host.cancel(owner));
  }

  /** Deletes the task now, for its owner only (a user's data erased on request). */
  erase(owner: string | undefined): Promise<boolean> {
    return this.#host.erase(owner);
  }

  /** Runs the task, restarts a lost run, or deletes the task at its TTL (`TaskHost.wake`, which never rejects). */
  override async alarm(): Promise<void> {
    await this.#host.wake();
  }

  /** A listener's socket: the Worker's upgrade, for the task's owner only (404 otherwise, as for an unknown task). */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return errorResponse(new McpError(400, ErrorCode.InvalidRequest, "A task object takes listeners only, as WebSocket upgrades"));
    }
    if (!(await this.#host.get(request.headers.get(OWNER_HEADER) ?? undefined))) return new Response(null, { status: 404 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    closeBack(socket, code, reason);
  }
}
