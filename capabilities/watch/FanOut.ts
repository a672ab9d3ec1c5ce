/**
 * A process's side of a broadcaster that several processes share (over PostgreSQL's `NOTIFY`, or
 * a Deno KV change log): every change, this process's own included, arrives from the shared feed
 * and is handed to this process's subscribers, held by topic as `MemoryBroadcaster` holds them
 * (`Subscriber`: one that falls more than `maxBytes` behind is ended, not grown). Not a
 * `MemoryBroadcaster` itself: what this adds (the subscribers' count, ending a topic) would weigh
 * on every Worker, which bundles that one.
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
import { Subscriber } from "../../shared/broadcast/Subscriber.ts";
import { type Broadcaster, resourceTopic } from "../../shared/broadcast/Broadcaster.ts";
import { LIST_CHANGED_METHOD, type ListFeature } from "../../shared/definition/ListKind.ts";
import { notification } from "../../shared/jsonrpc/messages.ts";

/** What every resource's topic starts with (`resourceTopic`). */
const RESOURCE_TOPIC = resourceTopic("");
const encoder = new TextEncoder();

/** Starts hearing the shared feed; resolves with how to stop once what is published after is heard. */
export type StartFeed = () => Promise<() => Promise<void>>;

export class FanOut implements Pick<Broadcaster, "subscribe"> {
  readonly #topics = new Map<string, Set<Subscriber>>();
  readonly #maxBytes: number;
  readonly #start: StartFeed;
  #size = 0;
  /** The feed being heard, or starting; undefined while nobody here subscribes. */
  #hearing: Promise<() => Promise<void>> | undefined;
  /** The last stop, which a new start waits for. */
  #stopping: Promise<void> = Promise.resolve();

  constructor(maxBytes: number, start: StartFeed) {
    this.#maxBytes = maxBytes;
    this.#start = start;
  }

  /** Subscribers here, per topic. */
  count(topic: string): number {
    return this.#topics.get(topic)?.size ?? 0;
  }

  /** Whether the feed is heard now (someone here subscribes). */
  get hearing(): boolean {
    return this.#hearing !== undefined;
  }

  async subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    // Subscribed first, so that a subscriber leaving meanwhile does not stop the feed under this one.
    const set = this.#topics.get(topic) ?? new Set();
    this.#topics.set(topic, set);
    const subscriber: Subscriber = new Subscriber(this.#maxBytes, () => {
      set.delete(subscriber);
      if (set.size === 0 && this.#topics.get(topic) === set) this.#topics.delete(topic);
      if (--this.#size === 0) this.#stop();
    });
    set.add(subscriber);
    this.#size++;
    const { stream } = subscriber.follow(signal);
    if (signal.aborted) return stream;
    try {
      await (this.#hearing ??= this.#stopping.then(this.#start));
    } catch (error) {
      this.#hearing = undefined;
      subscriber.end();
      throw error;
    }
    return stream;
  }

  /** Hands one change from the feed to this process's subscribers of its topic. */
  deliver(topic: string, message: object): void {
    const subscribers = this.#topics.get(topic);
    if (!subscribers) return;
    const line = encoder.encode(`${JSON.stringify(message)}\n`);
    for (const subscriber of [...subscribers]) subscriber.push(line);
  }

  /** Whether anyone here subscribes to `topic`: a change to another need not be read. */
  wants(topic: string): boolean {
    return this.#topics.has(topic);
  }

  /** Some changes of `topic` (of every topic, without one) may not have arrived: tells its subscribers to read again. */
  missed(topic?: string): void {
    for (const each of topic === undefined ? [...this.#topics.keys()] : [topic]) {
      const message = readAgain(each);
      if (message) this.deliver(each, message);
      else this.#end(each);
    }
  }

  /** Stops hearing the feed and ends every subscriber here. */
  async close(): Promise<void> {
    for (const topic of [...this.#topics.keys()]) this.#end(topic);
    await this.#stopping;
  }

  /** Ends every subscriber of `topic` after what it has queued: each sees an ordinary end and may subscribe again. */
  #end(topic: string): void {
    for (const subscriber of [...(this.#topics.get(topic) ?? [])]) subscriber.end();
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
