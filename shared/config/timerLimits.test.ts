import { describe, it, expect } from "vitest";
import { delayFor, MAX_TIMER_MS } from "./timerLimits.ts";

describe("timerLimits", () => {
  it("MAX_TIMER_MS is the largest signed 32-bit integer, about 24.8 days", () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(MAX_TIMER_MS / 86_400_000).toBeCloseTo(24.86, 2);
  });

  it("delayFor returns the time remaining until atMs", () => {
    expect(delayFor(1_500, 1_000)).toBe(500);
  });

  it("delayFor never returns a negative delay for a past deadline", () => {
    expect(delayFor(1_000, 1_000)).toBe(0);
    expect(delayFor(500, 1_000)).toBe(0);
  });

  it("delayFor caps a far deadline at MAX_TIMER_MS, so the host wakes early and re-arms", () => {
    const now = 1_700_000_000_000;
    expect(delayFor(now + 30 * 86_400_000, now)).toBe(MAX_TIMER_MS);
    expect(delayFor(now + MAX_TIMER_MS + 1, now)).toBe(MAX_TIMER_MS);
    expect(delayFor(Number.POSITIVE_INFINITY, now)).toBe(MAX_TIMER_MS);
  });

  it("delayFor measures from Date.now() by default", () => {
    const delay = delayFor(Date.now() + 10_000);
    expect(delay).toBeGreaterThan(9_000);
    expect(delay).toBeLessThanOrEqual(10_000);
  });
});
