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
 */
import { type Broadcaster, resourceTopic } from "../broadcast/Broadcaster.ts";
import { type Checked, passed, refused } from "../errors/Checked.ts";
import { McpError } from "../errors/McpError.ts";
import type { Outlet } from "../exchange/Exchange.ts";
import { followAbort } from "../exchange/followAbort.ts";
import { type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, notification, resultReply } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import { META } from "../protocol/metaKeys.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";

/** Resources one listen request may watch: each is a subscription held open in the broadcaster. */
export const MAX_LISTEN_RESOURCES = 100;

const LISTS = [
  ["toolsListChanged", "tools"],
  ["promptsListChanged", "prompts"],
  ["resourcesListChanged", "resources"],
] as const;

export interface ListenPlan {
  /** The acknowledgement's `notifications`: the subset of the request the server honors. */
  honored: Record<string, unknown>;
  topics: string[];
}

/** What a listen request will watch; refused with -32602 when the request is malformed. */
export function planListen(message: JsonRpcRequest, server: ServerDefinition): Checked<ListenPlan> {
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
      honored.resourceSubscriptions = [...new Set(uris)];
      topics.push(...new Set(uris.map(resourceTopic)));
    }
  }
  return passed({ honored, topics });
}

/**
 * Subscribes, sends the acknowledgement, and resolves; the notifications then flow to `outlet`
 * until `cancel` aborts (the client closed the stream or cancelled the request: nothing more is
 * sent, and the outlet is dropped) or a subscriber is dropped (a final result is the reply).
 * Either way the outlet ends exactly once, and `done` runs after.
 */
export async function listen(message: JsonRpcRequest, plan: ListenPlan, broadcast: Broadcaster, outlet: Outlet, cancel: AbortSignal, logger: Logger, done?: () => void): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  const unlink = followAbort(cancel, controller);
  const tag = { [META.subscriptionId]: message.id };
  const send = (notice: JsonRpcNotification) => outlet.notify(notice, JSON.stringify(notice), controller.signal);
  const end = (reply?: JsonRpcResponse) => {
    unlink();
    if (reply) return Promise.resolve(outlet.reply(reply, JSON.stringify(reply))).finally(done);
    outlet.drop();
    done?.();
  };
  let streams: ReadableStream<Uint8Array>[];
  try {
    streams = await Promise.all(plan.topics.map((topic) => broadcast.subscribe(topic, controller.signal)));
    await send(notification("notifications/subscriptions/acknowledged", { _meta: tag, notifications: plan.honored }));
  } catch (error) {
    stop();
    end();
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

/** The newline-delimited texts of a byte stream. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        yield buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
