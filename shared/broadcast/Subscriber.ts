/**
 * One subscriber of a topic, as its listener reads it: a byte stream of newline-delimited JSON
 * messages that queues at most `maxBytes` unread (a byte-length queuing strategy, so
 * `desiredSize` is the room left). A message that finds it over its bound ends it instead of
 * growing it: a close, not an error, so the reader sees an ordinary end and finishes gracefully
 * (and may subscribe again). Every broadcaster holds its subscribers this way: in process
 * (`MemoryBroadcaster`), in the Worker that relays a topic object's socket
 * (`capabilities/watch/durable/WatchObject.ts`), and in each process sharing a store
 * (`capabilities/watch/FanOut.ts`), so memory is bounded per listener where the listener is.
 *
 * One teardown: the reader cancels, the listener's signal aborts, the bound is passed, or the
 * source ends — `onEnd` runs once, whichever comes first.
 */
export class Subscriber {
  readonly stream: ReadableStream<Uint8Array>;
  readonly #maxBytes: number;
  readonly #onEnd: () => void;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;

  constructor(maxBytes: number, onEnd: () => void) {
    this.#maxBytes = maxBytes;
    this.#onEnd = onEnd;
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#finish(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: maxBytes }),
    );
  }

  /** Ends when `signal` aborts (at once if it has). */
  follow(signal: AbortSignal): this {
    if (signal.aborted) this.end();
    else signal.addEventListener("abort", () => this.end(), { once: true });
    return this;
  }

  /** Queues one encoded line; ends the subscriber instead when it is over its bound. False once ended. */
  push(line: Uint8Array): boolean {
    if (this.#ended) return false;
    const room = this.#controller.desiredSize ?? 0;
    // Past the bound only with something already unread: one message larger than the bound still goes to a reader that keeps up.
    if (room < line.byteLength && room < this.#maxBytes) {
      this.end();
      return false;
    }
    this.#controller.enqueue(line);
    return true;
  }

  /** Ends the stream after what is queued. */
  end(): void {
    if (this.#ended) return;
    this.#finish();
    try {
      this.#controller.close();
    } catch {
      // already ended by the reader
    }
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd();
  }
}
