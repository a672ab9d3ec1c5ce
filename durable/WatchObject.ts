/**
 * Fan-out of change notifications across Worker isolates: one Durable Object per topic (what is
 * watched: `tools`, `prompts`, `resources`, or `resource:<uri>`), found by `idFromName(topic)`, so
 * every isolate that publishes or listens on a topic reaches the same object. It holds the open
 * subscriber streams of that topic in a `MemoryBroadcaster` and nothing else: no storage, no
 * alarm. A subscriber is a byte stream returned over RPC to the Worker serving the
 * `subscriptions/listen` request; cancelling it there (the client went away) removes it here.
 *
 * Design and cost. Publishing is one RPC from the publishing isolate to the topic's object,
 * then one enqueue per subscriber. Listening holds one RPC stream per topic per listen request,
 * which keeps the topic's object in memory while anyone listens: billed as duration of one
 * object per watched topic (128 MB × time resident; see `SessionObject.ts` for the rates), not
 * per listener. A topic nobody listens to costs nothing until a publish wakes its object for a
 * moment. Each subscriber may fall at most MAX_QUEUE_BYTES behind; past that its stream ends,
 * which ends that listen request gracefully, so a stalled client never grows this object.
 * Messages published while a listener is reconnecting are not replayed: 2026-07-28 listen
 * streams are not resumable, and a client re-fetches the list after it listens again.
 */
import { DurableObject } from "cloudflare:workers";
import type { Broadcaster } from "../shared/broadcast/Broadcaster.ts";
import { MemoryBroadcaster } from "../shared/broadcast/MemoryBroadcaster.ts";
import { readConfig } from "../shared/config/readConfig.ts";
import type { ServerEnv } from "../shared/server/RequestContext.ts";

export class WatchObject extends DurableObject<ServerEnv> {
  readonly #hub: MemoryBroadcaster;

  constructor(ctx: DurableObjectState, env: ServerEnv) {
    super(ctx, env);
    this.#hub = new MemoryBroadcaster(readConfig(env).maxQueueBytes);
  }

  async subscribe(topic: string): Promise<ReadableStream<Uint8Array>> {
    return this.#hub.subscribe(topic, new AbortController().signal);
  }

  async publish(topic: string, message: object): Promise<void> {
    await this.#hub.publish(topic, message);
  }

  /** Subscribers of `topic` now; for tests and operators. */
  async subscribers(topic: string): Promise<number> {
    return this.#hub.count(topic);
  }
}

/** The `Broadcaster` a Worker uses when `MCP_WATCH` is bound: every isolate reaches the same topic objects. */
export function durableBroadcaster(namespace: DurableObjectNamespace<WatchObject>): Broadcaster {
  const stub = (topic: string) => namespace.get(namespace.idFromName(topic));
  return {
    publish: (topic, message) => stub(topic).publish(topic, message),
    async subscribe(topic, signal) {
      const stream = (await stub(topic).subscribe(topic)) as ReadableStream<Uint8Array>;
      // Piping with the signal cancels the RPC stream when the listener goes, which removes the subscriber.
      return stream.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), { signal });
    },
  };
}
