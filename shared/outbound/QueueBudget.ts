/**
 * One session's outbound allowance, shared by every queue of that session (the legacy stream,
 * each POST response stream, the standalone GET stream, a connection's 2026-07-28 requests):
 * bytes and messages waiting anywhere in the session, plus reservations for replies to accepted
 * requests. Admission, and the wait of handlers' notifications for room, are decided here, so a
 * session's memory is bounded however many streams it has.
 *
 * A reservation is taken when a request is admitted and travels with it to its outlet: one
 * message's place, and the request's own size (what holding it costs while it waits for a slot
 * and runs), so that admitted work is bounded in bytes too, not only in count. Exactly
 * one of two things ends it: `commit()` in the step that queues the reply (the frame now holds
 * the place), or `release()` when no reply will be sent (cancelled, its client gone). Both are
 * idempotent, so a second end, on any path, cannot free a place twice.
 */
export interface QueueLimits {
  maxBytes: number;
  maxMessages: number;
}

export class QueueBudget {
  bytes = 0;
  messages = 0;
  reserved = 0;
  /** The sizes the reservations hold (see the module header). */
  reservedBytes = 0;
  #roomWaiters: Array<() => void> = [];

  constructor(readonly limits: QueueLimits) {}

  /** The bound MAX_QUEUE_BYTES / MAX_QUEUE_MESSAGES set for every stream. */
  static fromConfig(config: { maxQueueBytes: number; maxQueueMessages: number }): QueueBudget {
    return new QueueBudget({ maxBytes: config.maxQueueBytes, maxMessages: config.maxQueueMessages });
  }

  /**
   * Can `count` more requests of `bytes` in all be accepted? True while frames plus reservations
   * stay within the message cap, and queued plus reserved bytes stay under the byte cap with
   * them; a budget holding no bytes takes any one body the routes let through (MAX_BODY_BYTES).
   */
  canAdmit(count: number, bytes = 0): boolean {
    if (this.messages + this.reserved + count > this.limits.maxMessages) return false;
    const held = this.bytes + this.reservedBytes;
    return held === 0 || held + bytes < this.limits.maxBytes;
  }

  /** Does a notification of `bytes` fit now? An empty budget takes any frame, so none waits forever. */
  fits(bytes: number): boolean {
    if (this.messages === 0) return true;
    return this.messages + this.reserved + 1 <= this.limits.maxMessages && this.bytes + bytes <= this.limits.maxBytes;
  }

  /** Holds one reply's place, and `bytes` of its request, until it is committed or released. */
  reserve(bytes = 0): Reservation {
    this.reserved++;
    this.reservedBytes += bytes;
    return new Reservation(this, bytes);
  }

  added(bytes: number): void {
    this.bytes += bytes;
    this.messages++;
  }

  removed(bytes: number, messages = 1): void {
    this.bytes -= bytes;
    this.messages -= messages;
    this.wake();
  }

  /** Resolves at the next change that may have made room; rejects with the reason if aborted first. */
  whenRoom(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#roomWaiters.push(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }

  wake(): void {
    if (this.#roomWaiters.length === 0) return;
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const wake of waiters) wake();
  }
}

/** One reply's place in a budget (see the module header). */
export class Reservation {
  #budget: QueueBudget | undefined;
  readonly #bytes: number;

  constructor(budget: QueueBudget, bytes = 0) {
    this.#budget = budget;
    this.#bytes = bytes;
  }

  /** Still holding its place: neither committed nor released. */
  get held(): boolean {
    return this.#budget !== undefined;
  }

  /** The reply is queued (or needed no queue) in this same step: the place passes to its frame. */
  commit(): void {
    // The request's own bytes are free now: admission may have room again.
    this.#end(this.#bytes > 0);
  }

  /** No reply will be sent: the place is free for others. */
  release(): void {
    this.#end(true);
  }

  /** Ends the reservation once, whichever way; `wake` tells waiting notifications there may be room. */
  #end(wake: boolean): void {
    const budget = this.#budget;
    if (!budget) return;
    this.#budget = undefined;
    budget.reserved--;
    budget.reservedBytes -= this.#bytes;
    if (wake) budget.wake();
  }
}
