/**
 * One session's outbound allowance, shared by every queue of that session (the legacy stream,
 * each POST response stream, the standalone GET stream): bytes and messages waiting anywhere in
 * the session, plus reservations for replies to accepted requests. Admission, and the wait of
 * handlers' notifications for room, are decided here, so a session's memory is bounded however
 * many streams it has.
 */
export interface QueueLimits {
  maxBytes: number;
  maxMessages: number;
}

export class QueueBudget {
  bytes = 0;
  messages = 0;
  reserved = 0;
  #roomWaiters: Array<() => void> = [];

  constructor(readonly limits: QueueLimits) {}

  /** The bound MAX_QUEUE_BYTES / MAX_QUEUE_MESSAGES set for every stream. */
  static fromConfig(config: { maxQueueBytes: number; maxQueueMessages: number }): QueueBudget {
    return new QueueBudget({ maxBytes: config.maxQueueBytes, maxMessages: config.maxQueueMessages });
  }

  /**
   * Can `count` more requests be accepted? True while frames plus outstanding reservations stay
   * within the message cap and queued bytes are under the byte cap.
   */
  canAdmit(count: number): boolean {
    return this.messages + this.reserved + count <= this.limits.maxMessages && this.bytes < this.limits.maxBytes;
  }

  /** Does a notification of `bytes` fit now? An empty budget takes any frame, so none waits forever. */
  fits(bytes: number): boolean {
    if (this.messages === 0) return true;
    return this.messages + this.reserved + 1 <= this.limits.maxMessages && this.bytes + bytes <= this.limits.maxBytes;
  }

  reserve(count = 1): void {
    this.reserved += count;
  }

  release(count = 1): void {
    this.reserved = Math.max(0, this.reserved - count);
    this.wake();
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
