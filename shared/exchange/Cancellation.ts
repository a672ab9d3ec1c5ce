/**
 * How one request is aborted: by its deadline, by the client (a cancellation, a closed stream, a
 * session ended), or by its era. Most requests are never aborted, so the core hears an abort
 * through one callback instead of an event listener on the signal: adding and removing that
 * listener shows in every call's profile (`scripts/bench/profile.mjs`). The `AbortController` is made when someone asks for the signal: every handler's
 * context does (see `requestContext`); a listen held on a message stream may never.
 *
 * @example
 * const cancellation = new Cancellation();
 * cancellation.onAbort = (reason) => …; // the core's race against the handler
 * cancellation.abort(CLIENT_CLOSED); // a handler that read ctx.signal sees it aborted, with this reason
 */
export class Cancellation {
  /** Set, with `reason`, by the first `abort`. */
  aborted = false;
  reason: unknown;
  #controller: AbortController | undefined;
  /** Called once, on abort, if set by then: the one party that waits for it (the execution core). */
  onAbort: ((reason: unknown) => void) | undefined;

  /** The request's `AbortSignal`, made on first use; aborted with the reason if the request already is. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the request once; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.onAbort?.(reason);
  }
}
