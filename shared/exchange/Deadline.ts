/**
 * A request's HANDLER_TIMEOUT_MS, armed only for a handler that is still running once the
 * promise jobs queued behind it have had QUICK_TURNS turns. Most handlers answer within those
 * turns, without waiting on any I/O, and for them no platform timer is set or cleared: on the
 * 2026-07-28 hot path `setTimeout` and `clearTimeout` would be the largest platform cost of a
 * call (`npm run bench:calls`). A handler that waits on I/O
 * outlives the turns, and its timer is armed then for the time left, so the deadline it meets is
 * the same. One timer per request still: on Workers a timer belongs to the request (or object)
 * that set it, so one timer shared by many requests would die with the first of them.
 *
 * @example
 * const deadline = new Deadline(cancellation, timeoutMs, DEADLINE);
 * void deadline.armUnlessQuick(); // while the handler runs
 * … await the handler …
 * deadline.settle(); // in `finally`
 */
import type { Cancellation } from "./Cancellation.ts";

/**
 * Promise turns a handler may take before its timer is armed. A tool call's whole pipeline
 * (dispatch, validation, the handler, the result's checks) takes fewer than this when the handler
 * awaits nothing slow; a handler that waits on I/O takes as many turns as it likes, since none
 * run while it waits, and the count ends at once.
 */
const QUICK_TURNS = 64;

export class Deadline {
  #settled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #started = Date.now();

  /**
   * @param reason what `cancellation` is aborted with once `ms` have passed
   */
  constructor(
    readonly cancellation: Cancellation,
    readonly ms: number,
    readonly reason: unknown,
  ) {}

  /** Arms the timer, for the time left, unless the request settles within QUICK_TURNS turns. Never rejects. */
  async armUnlessQuick(): Promise<void> {
    for (let turn = 0; turn < QUICK_TURNS; turn++) {
      await undefined;
      if (this.#settled) return;
    }
    this.#timer = setTimeout(pastDeadline, Math.max(0, this.ms - (Date.now() - this.#started)), this);
  }

  /** The request is answered or aborted: the timer, if armed, is cleared, and none is armed after. */
  settle(): void {
    this.#settled = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}

/** The timer's callback: a module function with the deadline as its argument, so no closure is made per request. */
function pastDeadline(deadline: Deadline): void {
  deadline.cancellation.abort(deadline.reason);
}
