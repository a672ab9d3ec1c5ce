/**
 * Makes `controller` abort when `signal` does (at once if it already has), with `reason`, or
 * with the signal's own reason when none is given: how a request's own controller (its deadline,
 * its own ending) also hears the client's cancellation. Returns the unlink, to call once the
 * request is over so a long-lived signal holds no listener.
 */
export function followAbort(signal: AbortSignal, controller: AbortController, reason?: unknown): () => void {
  const abort = () => controller.abort(reason ?? signal.reason);
  if (signal.aborted) {
    abort();
    return () => {};
  }
  signal.addEventListener("abort", abort, { once: true });
  return () => signal.removeEventListener("abort", abort);
}
