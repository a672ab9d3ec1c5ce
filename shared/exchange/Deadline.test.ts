import { afterEach, describe, expect, it, vi } from "vitest";
import { Cancellation } from "./Cancellation.ts";
import { Deadline } from "./Deadline.ts";

const PAST = Symbol("past");

/** Resolves after `n` promise turns, none of them waiting on I/O. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await undefined;
}

describe("Deadline", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("sets no platform timer for a request settled within a few promise turns", async () => {
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    const cancellation = new Cancellation();
    const deadline = new Deadline(cancellation, 50, PAST);
    const armed = deadline.armUnlessQuick();
    await turns(10);
    deadline.settle();
    await armed;
    expect(setTimer).not.toHaveBeenCalled();
    expect(cancellation.aborted).toBe(false);
  });

  it("aborts a request that waits on I/O past its time, with its reason", async () => {
    const cancellation = new Cancellation();
    const deadline = new Deadline(cancellation, 30, PAST);
    await deadline.armUnlessQuick();
    expect(cancellation.aborted).toBe(false);
    const aborted = new Promise((resolve) => (cancellation.onAbort = resolve));
    expect(await aborted).toBe(PAST);
    expect(cancellation.reason).toBe(PAST);
  });

  it("arms the timer for the time left, counting from when the request started", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    try {
      const cancellation = new Cancellation();
      const deadline = new Deadline(cancellation, 1_000, PAST);
      // The handler computes for 400 ms before its first wait.
      vi.setSystemTime(Date.now() + 400);
      await deadline.armUnlessQuick();
      vi.advanceTimersByTime(599);
      expect(cancellation.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(cancellation.reason).toBe(PAST);
    } finally {
      vi.useRealTimers();
    }
  });

  it("clears an armed timer when the request settles, so nothing is aborted after", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    try {
      const cancellation = new Cancellation();
      const deadline = new Deadline(cancellation, 100, PAST);
      await deadline.armUnlessQuick();
      expect(vi.getTimerCount()).toBe(1);
      deadline.settle();
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(1_000);
      expect(cancellation.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
