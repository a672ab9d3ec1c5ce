/**
 * A `Broadcaster` inside one process: each topic's subscribers, each bounded by `maxBytes` of
 * unread messages (`Subscriber`: one that falls further behind is ended, not grown). Also the
 * process's side of a broadcaster shared by processes (`capabilities/watch/FanOut.ts`), which
 * hears when the last subscriber leaves (`emptied`) and ends a topic whose changes were lost.
 */
import type { Broadcaster } from "./Broadcaster.ts";
import { Subscriber } from "./Subscriber.ts";

const encoder = new TextEncoder();

export class MemoryBroadcaster implements Broadcaster {
  readonly #topics = new Map<string, Set<Subscriber>>();
  readonly #maxBytes: number;
  readonly #emptied: (() => void) | undefined;
  #size = 0;

  /** @param emptied called each time the last subscriber of every topic has left */
  constructor(maxBytes: number, emptied?: () => void) {
    this.#maxBytes = maxBytes;
    this.#emptied = emptied;
  }

  /** Subscribers per topic, for stats and tests. */
  count(topic: string): number {
    return this.#topics.get(topic)?.size ?? 0;
  }

  /** Subscribers of every topic. */
  get size(): number {
    return this.#size;
  }

  /** The topics someone subscribes to now. */
  topics(): string[] {
    return [...this.#topics.keys()];
  }

  async publish(topic: string, message: object): Promise<void> {
    const subscribers = this.#topics.get(topic);
    if (!subscribers) return;
    const line = encoder.encode(`${JSON.stringify(message)}\n`);
    for (const subscriber of [...subscribers]) subscriber.push(line);
  }

  /** Ends every subscriber of `topic` after what it has queued: each sees an ordinary end and may subscribe again. */
  end(topic: string): void {
    for (const subscriber of [...(this.#topics.get(topic) ?? [])]) subscriber.end();
  }

  async subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const set = this.#topics.get(topic) ?? new Set();
    this.#topics.set(topic, set);
    const subscriber: Subscriber = new Subscriber(this.#maxBytes, () => {
      set.delete(subscriber);
      if (set.size === 0 && this.#topics.get(topic) === set) this.#topics.delete(topic);
      if (--this.#size === 0) this.#emptied?.();
    });
    set.add(subscriber);
    this.#size++;
    return subscriber.follow(signal).stream;
  }
}
