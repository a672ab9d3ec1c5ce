/**
 * An outbound queue: encoded frames waiting for one client connection to read them. The stream
 * that drains it pulls one frame per read (`SseStream`), so the client's read rate — TCP flow
 * control, surfacing as the stream's `desiredSize` — is the only thing that empties it.
 *
 * Its frames count against a `QueueBudget`, the session's, shared by all of the session's
 * queues; a queue made from bare limits has a budget of its own. Three kinds of producer, three
 * rules (issue 2, "Backpressure, precisely"):
 * - new requests are admitted only while there is room (`canAdmit()`), and each admitted request
 *   holds a reservation until its reply is pushed, so its reply always fits (never dropped);
 * - replies are pushed unconditionally (`push()`): their room was reserved at admission;
 * - notifications from handlers wait for room (`pushWhenRoom()`): the handler slows down.
 *
 * Not here: encoding (frames arrive as bytes), stream lifecycle, what to do when full.
 */
import { QueueBudget, type QueueLimits } from "./QueueBudget.ts";

export type { QueueLimits } from "./QueueBudget.ts";

export interface QueueStats {
  bytes: number;
  messages: number;
  reserved: number;
}

export class OutboundQueue {
  readonly budget: QueueBudget;
  #frames: Uint8Array[] = [];
  #head = 0;
  #bytes = 0;
  #dataWaiter: (() => void) | undefined;

  constructor(limitsOrBudget: QueueLimits | QueueBudget) {
    this.budget = limitsOrBudget instanceof QueueBudget ? limitsOrBudget : new QueueBudget(limitsOrBudget);
  }

  get limits(): QueueLimits {
    return this.budget.limits;
  }

  /** This queue's frames, and the budget's reservations. */
  get stats(): QueueStats {
    return { bytes: this.#bytes, messages: this.#frames.length - this.#head, reserved: this.budget.reserved };
  }

  canAdmit(count: number): boolean {
    return this.budget.canAdmit(count);
  }

  reserve(count = 1): void {
    this.budget.reserve(count);
  }

  release(count = 1): void {
    this.budget.release(count);
  }

  /** Appends a frame whose room was reserved (a reply) or that is tiny (a keepalive). */
  push(frame: Uint8Array): void {
    this.#frames.push(frame);
    this.#bytes += frame.byteLength;
    this.budget.added(frame.byteLength);
    const wake = this.#dataWaiter;
    this.#dataWaiter = undefined;
    wake?.();
  }

  /** Appends a frame once it fits in the budget; rejects with `signal.reason` if aborted first (or already). */
  async pushWhenRoom(frame: Uint8Array, signal: AbortSignal): Promise<void> {
    // A cancelled request sends nothing more (cancellation spec), even when there is room.
    signal.throwIfAborted();
    while (!this.budget.fits(frame.byteLength)) {
      signal.throwIfAborted();
      await this.budget.whenRoom(signal);
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
    this.budget.removed(frame.byteLength);
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
    const messages = this.#frames.length - this.#head;
    this.budget.removed(this.#bytes, messages);
    this.#frames = [];
    this.#head = 0;
    this.#bytes = 0;
  }
}

const EMPTY = new Uint8Array(0);
