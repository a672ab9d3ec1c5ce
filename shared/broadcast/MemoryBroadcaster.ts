/**
 * A `Broadcaster` inside one process. Each subscriber's stream queues at most `maxBytes` of
 * unread messages (a byte-length queuing strategy, so `desiredSize` is the room left); a publish
 * that finds a subscriber over its bound closes that subscriber's stream instead of growing it
 * (a close, not an error: the reader sees an ordinary end and finishes gracefully).
 */
import type { Broadcaster } from "./Broadcaster.ts";

const encoder = new TextEncoder();

export class MemoryBroadcaster implements Broadcaster {
  readonly #topics = new Map<string, Set<ReadableStreamDefaultController<Uint8Array>>>();
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Subscribers per topic, for stats and tests. */
  count(topic: string): number {
    return this.#topics.get(topic)?.size ?? 0;
  }

  async publish(topic: string, message: object): Promise<void> {
    const line = encoder.encode(`${JSON.stringify(message)}\n`);
    for (const controller of this.#topics.get(topic) ?? []) {
      const room = controller.desiredSize ?? 0;
      // Past the bound only with something already unread: one message larger than the bound still goes to a reader that keeps up.
      if (room < line.byteLength && room < this.#maxBytes) {
        this.#drop(topic, controller);
        controller.close();
      } else controller.enqueue(line);
    }
  }

  async subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    let self!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          self = controller;
          const set = this.#topics.get(topic) ?? new Set();
          set.add(controller);
          this.#topics.set(topic, set);
        },
        cancel: () => this.#drop(topic, self),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: this.#maxBytes }),
    );
    const end = () => {
      this.#drop(topic, self);
      try {
        self.close();
      } catch {
        // already ended
      }
    };
    if (signal.aborted) end();
    else signal.addEventListener("abort", end, { once: true });
    return stream;
  }

  #drop(topic: string, controller: ReadableStreamDefaultController<Uint8Array>): void {
    const set = this.#topics.get(topic);
    set?.delete(controller);
    if (set?.size === 0) this.#topics.delete(topic);
  }
}
