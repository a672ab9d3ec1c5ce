/**
 * An outbound queue: encoded frames waiting for one client connection to read them. The stream
 * that drains it pulls one frame per read (`FrameStream`), so the client's read rate — TCP flow
 * control, surfacing as the stream's `desiredSize` — is the only thing that empties it.
 *
 * Frames are bytes for an HTTP body (SSE) and text for a stream of whole messages (stdio, a
 * WebSocket), which take JSON texts as they are: nothing is encoded only to be decoded again. A
 * frame counts its `byteLength`, or its `length` for text (what a string holds in memory, within
 * a factor of two).
 *
 * Its frames count against a `QueueBudget`, the session's, shared by all of the session's
 * queues. Three kinds of producer, three rules:
 * - new requests are admitted only while the budget has room, and each admitted request holds a
 *   reservation until its reply is pushed, so its reply always fits (never dropped);
 * - replies are pushed unconditionally (`push()`): their room was reserved at admission;
 * - notifications from handlers wait for room (`pushWhenRoom()`): the handler slows down.
 *
 * Not here: encoding, stream lifecycle, what to do when full.
 */
import { QueueBudget, type QueueLimits } from "./QueueBudget.ts";

export type Frame = string | Uint8Array;

export function frameSize(frame: Frame): number {
  return typeof frame === "string" ? frame.length : frame.byteLength;
}

export class OutboundQueue<T extends Frame = Uint8Array> {
  readonly budget: QueueBudget;
  #frames: T[] = [];
  #head = 0;
  #size = 0;
  #dataWaiter: (() => void) | undefined;

  /** A queue of the session's budget, or of a budget of its own made from bare limits. */
  constructor(limitsOrBudget: QueueLimits | QueueBudget) {
    this.budget = limitsOrBudget instanceof QueueBudget ? limitsOrBudget : new QueueBudget(limitsOrBudget);
  }

  /** This queue's frames, and the budget's reservations. */
  get stats(): { bytes: number; messages: number; reserved: number } {
    return { bytes: this.#size, messages: this.#frames.length - this.#head, reserved: this.budget.reserved };
  }

  get empty(): boolean {
    return this.#head === this.#frames.length;
  }

  /** Appends a frame whose room was reserved (a reply) or that is tiny (a keepalive). */
  push(frame: T): void {
    const size = frameSize(frame);
    this.#frames.push(frame);
    this.#size += size;
    this.budget.added(size);
    const wake = this.#dataWaiter;
    this.#dataWaiter = undefined;
    wake?.();
  }

  /** Appends a frame once it fits in the budget; rejects with `signal.reason` if aborted first (or already). */
  async pushWhenRoom(frame: T, signal: AbortSignal): Promise<void> {
    // A cancelled request sends nothing more (cancellation spec), even when there is room.
    signal.throwIfAborted();
    while (!this.budget.fits(frameSize(frame))) {
      signal.throwIfAborted();
      await this.budget.whenRoom(signal);
    }
    this.push(frame);
  }

  /** The oldest frame, or undefined when empty. */
  shift(): T | undefined {
    if (this.#head === this.#frames.length) return undefined;
    const frame = this.#frames[this.#head]!;
    this.#frames[this.#head++] = undefined as unknown as T;
    const size = frameSize(frame);
    this.#size -= size;
    // Compact once the consumed prefix dominates, keeping shift O(1) amortised.
    if (this.#head > 1024 && this.#head * 2 > this.#frames.length) {
      this.#frames = this.#frames.slice(this.#head);
      this.#head = 0;
    }
    this.budget.removed(size);
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
    this.budget.removed(this.#size, messages);
    this.#frames = [];
    this.#head = 0;
    this.#size = 0;
  }
}
