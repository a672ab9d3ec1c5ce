/**
 * A session's outbound queue: encoded frames waiting for the client to read them, bounded in
 * bytes and in messages. The stream that drains it pulls one frame per read (`SseStream`), so
 * the client's read rate — TCP flow control, surfacing as the stream's `desiredSize` — is the
 * only thing that empties it, and nothing else buffers without limit.
 *
 * Three kinds of producer, three rules (issue 2, "Backpressure, precisely"):
 * - new requests are admitted only while there is room (`admit()`), and each admitted request
 *   holds a reservation until its reply is pushed, so its reply always fits (never dropped);
 * - replies are pushed unconditionally (`push()`): their room was reserved at admission;
 * - notifications from handlers wait for room (`pushWhenRoom()`): the handler slows down.
 *
 * Not here: encoding (frames arrive as bytes), stream lifecycle, what to do when full.
 */

export interface QueueLimits {
  maxBytes: number;
  maxMessages: number;
}

export interface QueueStats {
  bytes: number;
  messages: number;
  reserved: number;
}

export class OutboundQueue {
  #frames: Uint8Array[] = [];
  #head = 0;
  #bytes = 0;
  #reserved = 0;
  #dataWaiter: (() => void) | undefined;
  #roomWaiters: Array<() => void> = [];

  constructor(readonly limits: QueueLimits) {}

  get stats(): QueueStats {
    return { bytes: this.#bytes, messages: this.#frames.length - this.#head, reserved: this.#reserved };
  }

  /**
   * Can `count` more requests be accepted? True while frames plus outstanding reservations stay
   * within the message cap and queued bytes are under the byte cap.
   */
  canAdmit(count: number): boolean {
    const { bytes, messages, reserved } = this.stats;
    return messages + reserved + count <= this.limits.maxMessages && bytes < this.limits.maxBytes;
  }

  reserve(count = 1): void {
    this.#reserved += count;
  }

  release(count = 1): void {
    this.#reserved = Math.max(0, this.#reserved - count);
    this.#wakeRoom();
  }

  /** Appends a frame whose room was reserved (a reply) or that is tiny (a keepalive). */
  push(frame: Uint8Array): void {
    this.#frames.push(frame);
    this.#bytes += frame.byteLength;
    const wake = this.#dataWaiter;
    this.#dataWaiter = undefined;
    wake?.();
  }

  /** Appends a frame once it fits in both caps; rejects with `signal.reason` if aborted first. */
  async pushWhenRoom(frame: Uint8Array, signal: AbortSignal): Promise<void> {
    while (!this.#fits(frame.byteLength)) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        this.#roomWaiters.push(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
    this.push(frame);
  }

  /** The oldest frame, or undefined when empty. */
  shift(): Uint8Array | undefined {
    if (this.#head === this.#frames.length) return undefined;
    const frame = this.#frames[this.#head]!;
    this.#frames[this.#head++] = EMPTY;
    this.#bytes -= frame.byteLength;
    // Compact once the consumed prefix dominates, keeping shift O(1) amortised.
    if (this.#head > 1024 && this.#head * 2 > this.#frames.length) {
      this.#frames = this.#frames.slice(this.#head);
      this.#head = 0;
    }
    this.#wakeRoom();
    return frame;
  }

  /** Resolves when a frame is available (at once if one is). One waiter at a time: the stream. */
  whenData(): Promise<void> {
    if (this.#head < this.#frames.length) return Promise.resolve();
    return new Promise((resolve) => {
      this.#dataWaiter = resolve;
    });
  }

  /** Drops every queued frame (the client is gone); reservations and waiters stay. */
  clear(): void {
    this.#frames = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#wakeRoom();
  }

  #fits(bytes: number): boolean {
    const { messages } = this.stats;
    // An empty queue takes any frame, so one frame larger than the byte cap cannot wait forever.
    if (messages === 0) return true;
    return messages + this.#reserved + 1 <= this.limits.maxMessages && this.#bytes + bytes <= this.limits.maxBytes;
  }

  #wakeRoom(): void {
    if (this.#roomWaiters.length === 0) return;
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const wake of waiters) wake();
  }
}

const EMPTY = new Uint8Array(0);
