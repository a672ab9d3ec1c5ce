/**
 * A process's side of a broadcaster that several processes share (over PostgreSQL's `NOTIFY`, or
 * a Deno KV change log): every change, this process's own included, arrives from the shared feed
 * and is handed to this process's subscribers through a `MemoryBroadcaster`, which keeps each
 * subscriber's bound (one that falls more than `maxBytes` behind is ended, not grown).
 *
 * The feed is heard only while someone here subscribes: the first subscriber starts it (and is
 * handed its stream once what is published after is sure to be heard), the last to leave stops
 * it, so a process with no listener holds no connection, watch or timer for it.
 *
 * When the feed may have lost changes (its connection dropped, a stored message was gone before
 * it was read, this process fell too far behind), each topic's subscribers are told as the
 * protocol lets a server say "read again": a list's `list_changed`, a resource's `updated`. A
 * topic with no such message (a task's) has its subscribers ended instead: a 2026-07-28 listen
 * then ends with its final result, and the client listens again and reads the task afresh.
 */
import type { Broadcaster } from "../../shared/broadcast/Broadcaster.ts";
import { MemoryBroadcaster } from "../../shared/broadcast/MemoryBroadcaster.ts";
import { LIST_CHANGED_METHOD, type ListFeature } from "../../shared/definition/ListKind.ts";
import { notification } from "../../shared/jsonrpc/messages.ts";

const RESOURCE_TOPIC = "resource:";

/** Starts hearing the shared feed; resolves with how to stop once what is published after is heard. */
export type StartFeed = () => Promise<() => Promise<void>>;

export class FanOut implements Pick<Broadcaster, "subscribe"> {
  readonly #local: MemoryBroadcaster;
  readonly #start: StartFeed;
  /** The feed being heard, or starting; undefined while nobody here subscribes. */
  #hearing: Promise<() => Promise<void>> | undefined;
  /** The last stop, which a new start waits for. */
  #stopping: Promise<void> = Promise.resolve();

  constructor(maxBytes: number, start: StartFeed) {
    this.#local = new MemoryBroadcaster(maxBytes, () => this.#stop());
    this.#start = start;
  }

  /** Subscribers here, per topic. */
  count(topic: string): number {
    return this.#local.count(topic);
  }

  /** Whether the feed is heard now (someone here subscribes). */
  get hearing(): boolean {
    return this.#hearing !== undefined;
  }

  async subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    // Subscribed first, so that a subscriber leaving meanwhile does not stop the feed under this one.
    const stream = await this.#local.subscribe(topic, signal);
    if (signal.aborted) return stream;
    try {
      await (this.#hearing ??= this.#stopping.then(this.#start));
    } catch (error) {
      this.#hearing = undefined;
      await stream.cancel();
      throw error;
    }
    return stream;
  }

  /** Hands one change from the feed to this process's subscribers of its topic. */
  deliver(topic: string, message: object): void {
    void this.#local.publish(topic, message);
  }

  /** Whether anyone here subscribes to `topic`: a change to another need not be read. */
  wants(topic: string): boolean {
    return this.#local.count(topic) > 0;
  }

  /** Some changes of `topic` (of every topic, without one) may not have arrived: tells its subscribers to read again. */
  missed(topic?: string): void {
    for (const each of topic === undefined ? this.#local.topics() : [topic]) {
      const message = readAgain(each);
      if (message) this.deliver(each, message);
      else this.#local.end(each);
    }
  }

  /** Stops hearing the feed and ends every subscriber here. */
  async close(): Promise<void> {
    for (const topic of this.#local.topics()) this.#local.end(topic);
    await this.#stopping;
  }

  #stop(): void {
    const hearing = this.#hearing;
    if (!hearing) return;
    this.#hearing = undefined;
    this.#stopping = hearing.then((stop) => stop()).catch(() => {});
  }
}

/** The notification that tells a listener of `topic` to read it again, if the protocol has one. */
function readAgain(topic: string): object | undefined {
  if (Object.hasOwn(LIST_CHANGED_METHOD, topic)) return notification(LIST_CHANGED_METHOD[topic as ListFeature]);
  if (topic.startsWith(RESOURCE_TOPIC)) return notification("notifications/resources/updated", { uri: topic.slice(RESOURCE_TOPIC.length) });
  return undefined;
}
