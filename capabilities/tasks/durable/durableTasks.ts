/**
 * The Worker's side of the task objects: the `Tasks` the routes use when `MCP_TASK` is bound.
 * Each task id reaches its own object (`idFromName`), from any isolate; operations are RPC calls,
 * and a listener is a WebSocket the object accepts (`TaskObject`). Brought by `tasks()` on Workers
 * (`tasksOnWorkers`), apart from the object itself: the Worker calls this, the object runs the tasks.
 */
import type { Tasks } from "../../../shared/tasks/Tasks.ts";
import type { TaskObject } from "./TaskObject.ts";
import { OWNER_HEADER } from "./taskProtocol.ts";
import { unsettle } from "../../../durable/settled.ts";
import { followSocket } from "../../../durable/followSocket.ts";

export type { TaskObject };

const LISTEN_URL = "https://task.internal/listen";

/** The `Tasks` a Worker uses when `MCP_TASK` is bound: each task id reaches its own object, from any isolate. */
export function durableTasks(namespace: DurableObjectNamespace<TaskObject>, maxBytes: number): Tasks {
  const stub = (taskId: string) => namespace.get(namespace.idFromName(taskId));
  return {
    create: async (start) => unsettle(await stub(start.taskId).create(start)),
    get: async (taskId, owner) => unsettle(await stub(taskId).get(owner)),
    update: async (taskId, owner, responses) => unsettle(await stub(taskId).update(owner, responses)),
    cancel: async (taskId, owner) => unsettle(await stub(taskId).cancel(owner)),
    async watch(taskId, owner, signal) {
      const upgraded = await stub(taskId).fetch(LISTEN_URL, { headers: { upgrade: "websocket", ...(owner === undefined ? {} : { [OWNER_HEADER]: owner }) } });
      const socket = upgraded.webSocket;
      if (!socket) return undefined;
      return followSocket(socket, maxBytes, signal);
    },
  };
}
