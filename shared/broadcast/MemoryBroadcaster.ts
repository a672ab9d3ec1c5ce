/**
 * A `Broadcaster` inside one process: each topic's subscribers, each bounded by `maxBytes` of
 * unread messages (`Subscriber`: one that falls further behind is ended, not grown).
 */
import type { Broadcaster } from "./Broadcaster.ts";
import { Subscriber } from "./Subscriber.ts";

const encoder = new TextEncoder();

export class MemoryBroadcaster implements Broadcaster {
  readonly #topics = new Map<string, Set<Subscriber>>();
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Subscribers per topic, for stats and tests. */
  count(topic: string): number {
    return this.#topics.get(topic)?.size ?? 0;
  }

  async publish(topic: string, message: object): Promise<void> {
    const subscribers = this.#topics.get(topic);
    if (!subscribers) return;
    const line = encoder.encode(`${JSON.stringify(message)}\n`);
    for (const subscriber of [...subscribers]) subscriber.push(line);
  }

  async subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const set = this.#topics.get(topic) ?? new Set();
    this.#topics.set(topic, set);
    const subscriber: Subscriber = new Subscriber(this.#maxBytes, () => {
      set.delete(subscriber);
      if (set.size === 0 && this.#topics.get(topic) === set) this.#topics.delete(topic);
    });
    set.add(subscriber);
    return subscriber.follow(signal).stream;
  }
}
