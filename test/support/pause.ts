/** Resolves after `ms`, or rejects with the signal's reason once it aborts (a cancelled task, a call the client gave up). */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    signal.throwIfAborted();
    const aborted = () => (clearTimeout(timer), reject(signal.reason));
    // Removed once the pause ends, so that a run of many pauses leaves no listener behind on its signal.
    const timer = setTimeout(() => (signal.removeEventListener("abort", aborted), resolve()), ms);
    signal.addEventListener("abort", aborted, { once: true });
  });
