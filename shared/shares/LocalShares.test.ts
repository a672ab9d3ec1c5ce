import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { LocalShares } from "./LocalShares.ts";

const shares = () => new LocalShares({ ...DEFAULT_CONFIG, maxSessionsPerClient: 2, maxSessions: 3 });

describe("LocalShares", () => {
  it("counts per client and in total, and takes a holding again as a renewal, not a second one", async () => {
    const local = shares();
    expect((await local.acquire("session", "a", "1")).ok).toBe(true);
    expect((await local.acquire("session", "a", "1")).ok).toBe(true);
    expect(local.held("session", "a")).toEqual({ count: 1, bytes: 0 });
    expect((await local.acquire("session", "a", "2")).ok).toBe(true);
    expect((await local.acquire("session", "a", "3")).ok).toBe(false);
    expect((await local.acquire("session", "b", "4")).ok).toBe(true);
    // Three held in all: the total refuses a client that holds nothing.
    const total = await local.acquire("session", "c", "5");
    expect(total.ok).toBe(false);
    await local.release("session", "a", "1");
    expect((await local.acquire("session", "c", "5")).ok).toBe(true);
  });

  it("lets a holding with an `until` lapse by itself", async () => {
    const local = shares();
    await local.acquire("session", "a", "1", { until: 1_000 }, 0);
    await local.acquire("session", "a", "2", { until: 5_000 }, 0);
    expect((await local.acquire("session", "a", "3", {}, 999)).ok).toBe(false);
    expect((await local.acquire("session", "a", "3", {}, 1_000)).ok).toBe(true);
    expect(local.held("session", "a").count).toBe(2);
  });

  it("forgets a client that holds nothing", async () => {
    const local = shares();
    await local.acquire("task", "a", "1", { bytes: 10 });
    await local.release("task", "a", "1");
    await local.release("task", "a", "1");
    expect(local.held("task", "a")).toEqual({ count: 0, bytes: 0 });
  });
});
