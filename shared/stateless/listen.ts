/**
 * `subscriptions/listen` (2026-07-28 "Subscriptions"): one long-lived POST response stream per
 * listen request, carrying only the change notifications the client opted in to and the server
 * advertises, each tagged with `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen
 * request's id. The acknowledgement, naming the honored subset, goes first; it is sent only after
 * every topic is subscribed, so a change made right after the client reads it is not missed.
 *
 * Changes arrive through the `Broadcaster` (any isolate), one topic per list or per resource
 * URI. The stream is bounded like every other: a listener that stops reading holds up only its
 * own channel, and the broadcaster ends a subscriber that falls too far behind, which ends this
 * stream with a final `SubscriptionsListenResult` (the client may listen again).
 *
 * What one listen may pin is bounded, since each topic is a subscription held open (on Workers,
 * one Durable Object per topic): at most MAX_LISTEN_RESOURCES resources, each a URI the server
 * can read (a listed resource or a template match, as for `resources/subscribe`), so junk URIs
 * pin nothing; and at most MAX_OPEN_LISTENS listens per process (`OpenListens`), since this
 * revision cannot tell one client from another. Not here: where a listen is started and its slot
 * taken (`statelessPost`).
 */
import { resourceTopic } from "../broadcast/Broadcaster.ts";
import { lines } from "../broadcast/lines.ts";
import { type Checked, PASSED, passed, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { Outlet } from "../exchange/Exchange.ts";
import { followAbort } from "../exchange/followAbort.ts";
import { type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, notification, resultReply } from "../jsonrpc/messages.ts";
import { META } from "../protocol/metaKeys.ts";
import type { SwitchView } from "../definition/ListKind.ts";
import { MAX_URI_CHARS } from "../methods/resourceMethods.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { declaresTasks, tasksRequired } from "../methods/tasksExtension.ts";
import { isTaskId } from "../tasks/Tasks.ts";
import type { Runtime } from "../runtime/Runtime.ts";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";

/** Resources one listen request may watch: each is a subscription held open in the broadcaster. */
export const MAX_LISTEN_RESOURCES = 100;

/** Characters of a refused URI shown in the error message. */
const SHOWN_URI_CHARS = 200;

/** Listen requests open at once in one process (one isolate on Workers), unless `OpenListens` is given another. */
export const MAX_OPEN_LISTENS = 1_000;

/** Seconds a listen refused for MAX_OPEN_LISTENS is told to wait: a slot frees only when another listener leaves. */
export const LISTEN_RETRY_AFTER_SECONDS = 5;

const LISTS = [
  ["toolsListChanged", "tools"],
  ["promptsListChanged", "prompts"],
  ["resourcesListChanged", "resources"],
] as const;

/** Tasks one listen request may watch (tasks extension, `taskIds`): each is a socket held open to its task. */
export const MAX_LISTEN_TASKS = 100;

export interface ListenPlan {
  /** The acknowledgement's `notifications`: the subset of the request the server honors (`taskIds` are added once each task is found). */
  honored: Record<string, unknown>;
  topics: string[];
  /** Tasks asked for (tasks extension): the ones found, and the caller's, are watched and acknowledged. */
  taskIds: string[];
}

/**
 * What a listen request will watch; refused with -32602 when the request is malformed, and with
 * -32021 when it asks for `taskIds` without declaring the tasks extension in `capabilities`.
 */
export function planListen(message: JsonRpcRequest, server: CompiledServer, view: SwitchView = {}, clientCapabilities: Record<string, unknown> = {}): Checked<ListenPlan> {
  const filter = message.params?.notifications;
  if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
    return refused(McpError.invalidParams("subscriptions/listen needs params.notifications, e.g. { toolsListChanged: true }"));
  }
  const wanted = filter as Record<string, unknown>;
  const capabilities = server.capabilities() as Record<string, { listChanged?: boolean; subscribe?: boolean } | undefined>;
  const honored: Record<string, unknown> = {};
  const topics: string[] = [];
  for (const [key, feature] of LISTS) {
    if (wanted[key] === true && capabilities[feature]?.listChanged) {
      honored[key] = true;
      topics.push(feature);
    }
  }
  const uris = wanted.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === "string")) return refused(McpError.invalidParams("resourceSubscriptions must be an array of URIs"));
    if (uris.length > MAX_LISTEN_RESOURCES) return refused(McpError.invalidParams(`A listen request may watch at most ${MAX_LISTEN_RESOURCES} resources`));
    if (uris.length > 0 && capabilities.resources?.subscribe) {
      const unique = [...new Set(uris)];
      for (const uri of unique) {
        const watchable = checkWatchable(uri, server, view);
        if (!watchable.ok) return watchable;
      }
      honored.resourceSubscriptions = unique;
      topics.push(...unique.map(resourceTopic));
    }
  }
  const taskIds = wanted.taskIds;
  if (taskIds !== undefined) {
    if (!declaresTasks(clientCapabilities)) return refused(tasksRequired("Listening for task notifications (taskIds)"));
    if (!Array.isArray(taskIds) || !taskIds.every((id) => typeof id === "string")) return refused(McpError.invalidParams("taskIds must be an array of task ids"));
    if (taskIds.length > MAX_LISTEN_TASKS) return refused(McpError.invalidParams(`A listen request may watch at most ${MAX_LISTEN_TASKS} tasks`));
  }
  return passed({ honored, topics, taskIds: taskIds === undefined ? [] : [...new Set(taskIds as string[])] });
}

/**
 * Only a URI the server can read may be watched, the rule `resources/subscribe` keeps for sessions
 * ("Servers MUST validate all resource URIs"); -32602 naming the URI otherwise.
 */
function checkWatchable(uri: string, server: CompiledServer, view: SwitchView): Checked {
  const shown = JSON.stringify(uri.length > SHOWN_URI_CHARS ? `${uri.slice(0, SHOWN_URI_CHARS)}…` : uri);
  if (uri.length > MAX_URI_CHARS) {
    return refused(McpError.invalidParams(`subscriptions/listen cannot watch ${shown}: the URI has ${uri.length} characters, more than the limit of ${MAX_URI_CHARS}`));
  }
  if (!server.resolvesResource(uri, view)) {
    return refused(McpError.invalidParams(`subscriptions/listen cannot watch ${shown}: it is neither a resource this server lists nor a match for one of its resource templates`));
  }
  return PASSED;
}

/**
 * Counts the listen requests open in one process, each holding its topics' subscriptions until
 * its client leaves: at most `max` in all and `perClient` per client (`clientKey`: the principal,
 * else the address). Past either a listen is refused with 429, Retry-After and -32000.
 *
 * @example
 * const slot = listens.acquire(await clientKey(caller, address));
 * if (!slot.ok) return errorResponse(slot.error, message.id);
 * await listen(message, plan, broadcast, outlet, cancel, logger, slot.value); // releases it when the listen ends
 */
export class OpenListens {
  #count = 0;
  /** Open listens by client, for those that hold any. */
  readonly #byClient = new Map<string, number>();

  /**
   * @param max listens open at once; MAX_OPEN_LISTENS by default
   * @param perClient listens one client may hold open at once (MAX_LISTENS_PER_CLIENT)
   */
  constructor(
    readonly max = MAX_OPEN_LISTENS,
    readonly perClient = DEFAULT_CONFIG.maxListensPerClient,
  ) {}

  /** Listens open now. */
  get count(): number {
    return this.#count;
  }

  /**
   * A slot for `client` (`clientKey`), as its release (which frees it once, however often it is
   * called), or the 429 refusal when the client holds its share or all slots are taken.
   */
  acquire(client: string): Checked<() => void> {
    const held = this.#byClient.get(client) ?? 0;
    if (held >= this.perClient) {
      return refused(busy(`This client holds ${held} listen requests open, the most one client may (MAX_LISTENS_PER_CLIENT); close one, or retry after ${LISTEN_RETRY_AFTER_SECONDS}s`));
    }
    if (this.#count >= this.max) {
      return refused(busy(`This server holds at most ${this.max} listen requests open at once and all are taken; retry after ${LISTEN_RETRY_AFTER_SECONDS}s`));
    }
    this.#count++;
    this.#byClient.set(client, held + 1);
    let holding = true;
    return passed(() => {
      if (!holding) return;
      holding = false;
      this.#count--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left > 0) this.#byClient.set(client, left);
      else this.#byClient.delete(client);
    });
  }
}

function busy(message: string): McpError {
  return new McpError(429, ErrorCode.ServerBusy, message, undefined, { "retry-after": String(LISTEN_RETRY_AFTER_SECONDS) });
}

/** One `subscriptions/listen` request, as `admitStateless` planned it; `owner`: whose tasks it may watch. */
export interface ListenCall {
  readonly request: JsonRpcRequest;
  readonly plan: ListenPlan;
  readonly outlet: Outlet;
  readonly cancel: AbortSignal;
  readonly done?: () => void;
  readonly owner?: string;
}

/**
 * Subscribes, sends the acknowledgement, and resolves; the notifications then flow to `outlet`
 * until `cancel` aborts (the client closed the stream or cancelled the request: nothing more is
 * sent, and the outlet is dropped) or a subscriber is dropped (a final result is the reply).
 * Either way the outlet ends exactly once, and `done` runs after, also when subscribing fails
 * (then this rejects) or ending the outlet throws. The runtime's `tasks` are watched for `taskIds`.
 */
export async function listen(runtime: Pick<Runtime, "broadcast" | "logger" | "tasks">, call: ListenCall): Promise<void> {
  const { request: message, plan, outlet, cancel, done, owner } = call;
  const { logger } = runtime;
  const controller = new AbortController();
  const stop = () => controller.abort();
  const unlink = followAbort(cancel, controller);
  const tag = { [META.subscriptionId]: message.id };
  const send = (notice: JsonRpcNotification) => outlet.notify(notice, JSON.stringify(notice), controller.signal);
  const end = async (reply?: JsonRpcResponse) => {
    unlink();
    try {
      if (reply) await outlet.reply(reply, JSON.stringify(reply));
      else outlet.drop();
    } finally {
      done?.();
    }
  };
  let streams: ReadableStream<Uint8Array>[];
  try {
    streams = await Promise.all(plan.topics.map((topic) => runtime.broadcast.subscribe(topic, controller.signal)));
    const notifications = { ...plan.honored };
    if (message.params?.notifications && "taskIds" in (message.params.notifications as object)) {
      // Only tasks that exist and are the caller's are watched; the acknowledgement names them.
      const watched = await Promise.all(plan.taskIds.map((id) => (runtime.tasks && isTaskId(id) ? runtime.tasks.watch(id, owner, controller.signal) : undefined)));
      notifications.taskIds = plan.taskIds.filter((_, i) => watched[i]);
      streams.push(...watched.filter((stream) => stream !== undefined));
    }
    await send(notification("notifications/subscriptions/acknowledged", { _meta: tag, notifications }));
  } catch (error) {
    stop();
    await end().catch((dropped) => logger.error("internal.error", { message: String(dropped) }));
    throw error;
  }

  const relay = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of lines(stream)) {
      const { method, params } = JSON.parse(line) as { method: string; params?: Record<string, unknown> };
      await send(notification(method, { ...params, _meta: { ...(params?._meta as object | undefined), ...tag } }));
    }
  };
  // Also settles with no topics at all (nothing honored), once the client leaves.
  const left = controller.signal.aborted ? Promise.resolve() : new Promise<void>((resolve) => controller.signal.addEventListener("abort", () => resolve(), { once: true }));
  // The first relay to end (a subscriber dropped for falling behind) ends the subscription gracefully.
  void Promise.race([...streams.map(relay), left])
    .catch((error) => controller.signal.aborted || logger.warn("listen.ended", { reason: String(error) }))
    .then(async () => {
      if (controller.signal.aborted) return end();
      stop();
      await end(resultReply(message.id, { resultType: "complete", _meta: tag }));
    })
    .catch((error) => logger.error("internal.error", { message: String(error) }));
}
