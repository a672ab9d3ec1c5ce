import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_TIMER_MS } from "../config/timerLimits.ts";
import { LocalAlarms } from "./LocalAlarms.ts";

beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 10, 24) }));
afterEach(() => vi.useRealTimers());

describe("LocalAlarms", () => {
  it("fires a key's alarm once, when due, and a later set replaces the earlier", () => {
    const alarms = new LocalAlarms();
    const fired: string[] = [];
    alarms.set("a", Date.now() + 1_000, () => fired.push("first"));
    alarms.set("a", Date.now() + 2_000, () => fired.push("second"));
    alarms.set("b", Date.now() + 500, () => fired.push("b"));
    vi.advanceTimersByTime(1_500);
    expect(fired).toEqual(["b"]);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(["b", "second"]);
    vi.advanceTimersByTime(10_000);
    expect(fired).toEqual(["b", "second"]);
    expect(alarms.size).toBe(0);
  });

  it("reaches a deadline beyond one timer's reach without firing early", () => {
    const alarms = new LocalAlarms();
    const at = Date.now() + MAX_TIMER_MS + 60_000;
    let fired = 0;
    alarms.set("far", at, () => fired++);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toBe(0);
    expect(alarms.size).toBe(1);
    vi.advanceTimersByTime(60_000);
    expect(fired).toBe(1);
  });

  it("clear and clearAll disarm, leaving no timer", () => {
    const alarms = new LocalAlarms();
    let fired = 0;
    for (const key of ["a", "b", "c"]) alarms.set(key, Date.now() + 1_000, () => fired++);
    alarms.clear("a");
    expect(alarms.size).toBe(2);
    alarms.clearAll();
    expect(alarms.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(fired).toBe(0);
  });
});
