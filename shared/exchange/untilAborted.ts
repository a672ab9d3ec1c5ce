/**
 * A handler's result raced against its request's abort: a cancelled or timed-out request is
 * answered (or dropped) at once, not when a handler that ignores its signal finally returns.
 */

const ONCE = { once: true } as const;

/** Settles with the promise, or rejects with the signal's reason the moment it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, ONCE);
    // Two callbacks rather than then().finally(): one promise less per request on the hot path.
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
