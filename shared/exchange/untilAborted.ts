/**
 * A handler's result raced against its request's abort: a cancelled or timed-out request is
 * answered (or dropped) at once, not when a handler that ignores its signal finally returns.
 */

/** Settles with the promise, or rejects with the signal's reason the moment it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
