/**
 * The one place a handler's `RequestContext` is built, for every era, from the exchange's own
 * pieces (its signal, its guarded `notify`) and the era's `Scope`. The rules that are the same
 * everywhere live here: progress only when the request carried a `progressToken`, logs only at or
 * above the client's threshold, a list change heard on the request's own stream in a session.
 */
import type { Principal } from "../auth/Principal.ts";
import { notification, type JsonRpcMessage, type JsonRpcRequest } from "../jsonrpc/messages.ts";
import { atLeast } from "../protocol/logLevels.ts";
import { FEATURE_OF, LIST_CHANGED_METHOD } from "../definition/ListKind.ts";
import type { CreateMessageResult, ElicitResult, ListRootsResult, RequestContext, SessionContext } from "../definition/RequestContext.ts";
import type { HandlerStorage } from "../storage/KeyValueStore.ts";
import type { Cancellation } from "./Cancellation.ts";
import type { Outlet, Scope } from "./Exchange.ts";

/**
 * @param notify sends one message about this request (refused once it is answered or aborted)
 */
export function requestContext(request: JsonRpcRequest, scope: Scope, cancellation: Cancellation, notify: (message: JsonRpcMessage) => Promise<void>, outlet: Outlet, auth?: Principal): RequestContext {
  const progressToken = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const ask = (method: string, params: object, key: string | undefined) => scope.ask(method, params as Record<string, unknown>, key, cancellation.signal, notify);
  const session = scope.session;
  const base = {
    // Made for every request, a plain property: handlers spread and destructure their context, so
    // an accessor would have to be an own one, and defining one (in the literal, or with
    // defineProperty after) cost more on workerd than the AbortController it would save.
    signal: cancellation.signal,
    requestId: request.id,
    client: scope.client,
    env: scope.env,
    auth,
    progress: async (progress: number, total?: number, message?: string) => {
      if (typeof progressToken !== "string" && typeof progressToken !== "number") return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await notify(notification("notifications/progress", params));
    },
    log: async (level: Parameters<RequestContext["log"]>[0], data: unknown, logger?: string) => {
      const threshold = scope.logLevel();
      if (!threshold || !atLeast(level, threshold)) return;
      await notify(notification("notifications/message", logger === undefined ? { level, data } : { level, data, logger }));
    },
    sample: (params: object, options?: { key?: string }) => ask("sampling/createMessage", params, options?.key) as Promise<CreateMessageResult>,
    elicit: (params: object, options?: { key?: string }) => ask("elicitation/create", params, options?.key) as Promise<ElicitResult>,
    listRoots: (options?: { key?: string }) => ask("roots/list", {}, options?.key) as Promise<ListRootsResult>,
    closeStream: () => outlet.disconnect?.(),
    taskId: scope.taskId,
    startTask: () => (scope.startTask ? scope.startTask() : Promise.resolve()),
    resourceUpdated: (uri: string) => scope.resourceUpdated(uri, cancellation.signal),
    listChanged: async (feature: Parameters<RequestContext["listChanged"]>[0]) => {
      await scope.listChanged(feature);
      // On a session, its own stream hears it too: the change is this request's doing.
      if (session) await notify(notification(LIST_CHANGED_METHOD[feature]));
    },
  };
  if (!session) return base;
  const context: typeof base & { storage?: HandlerStorage; session?: SessionContext } = base;
  context.storage = session.storage;
  context.session = {
      id: session.id,
      isEnabled: (kind, id) => session.isEnabled(kind, id),
      // On the request's own stream: a client that never opened the standalone stream still learns of it.
      setEnabled: async (kind, id, enabled) => {
        if (await session.setEnabled(kind, id, enabled)) await notify(notification(LIST_CHANGED_METHOD[FEATURE_OF[kind]]));
      },
  };
  return context as RequestContext;
}
