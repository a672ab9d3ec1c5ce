import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { clientKey } from "./clientKey.ts";
import { LocalShares } from "./LocalShares.ts";
import type { ShareResource } from "./Shares.ts";

const shares = () => new LocalShares({ ...DEFAULT_CONFIG, maxSessionsPerClient: 2, maxSessions: 4 });

describe("LocalShares", () => {
  it("counts per client and in total, and takes a holding again as a renewal, not a second one", async () => {
    const local = shares();
    expect((await local.acquire("session", "a", "1")).ok).toBe(true);
    expect((await local.acquire("session", "a", "1")).ok).toBe(true);
    expect(local.held("session", "a")).toEqual({ count: 1, bytes: 0 });
    expect((await local.acquire("session", "a", "2")).ok).toBe(true);
    expect((await local.acquire("session", "a", "3")).ok).toBe(false);
    expect((await local.acquire("session", "b", "4")).ok).toBe(true);
    expect((await local.acquire("session", "c", "5")).ok).toBe(true);
    // Four held in all: the total refuses a client that holds nothing.
    const total = await local.acquire("session", "d", "6");
    expect(total.ok).toBe(false);
    await local.release("session", "a", "1");
    expect((await local.acquire("session", "d", "6")).ok).toBe(true);
  });

  it("past half the total, gives a client more only while four times what it holds stays free; newcomers take the rest", async () => {
    const local = new LocalShares({ ...DEFAULT_CONFIG, maxSessionsPerClient: 100, maxSessions: 10 });
    for (let i = 1; i <= 5; i++) expect((await local.acquire("session", "a", `a${i}`)).ok).toBe(true);
    const more = await local.acquire("session", "a", "a6");
    expect(more.ok ? "served" : more.error.message).toBe(
      "This server has 5 of its 10 sessions free (MAX_SESSIONS), too few to give one more to this client, holding 5: past 50% full, one more is given only while 4 times what is held stays free; retry after 60s",
    );
    for (const newcomer of ["b", "c", "d", "e", "f"]) expect((await local.acquire("session", newcomer, "1")).ok).toBe(true);
    expect((await local.acquire("session", "g", "1")).ok).toBe(false);
  });

  it("counts a holding a restart finds (held) whatever the bounds, so what was held before stays counted", async () => {
    const local = shares();
    for (const id of ["1", "2"]) await local.acquire("session", "a", id);
    expect((await local.acquire("session", "a", "3")).ok).toBe(false);
    expect((await local.acquire("session", "a", "3", { held: true })).ok).toBe(true);
    expect(local.held("session", "a").count).toBe(3);
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

describe("LocalShares: room for a newcomer", () => {
  /** The defaults' proportion: a client may hold a tenth of the total. */
  const crowded = () => new LocalShares({ ...DEFAULT_CONFIG, maxSessionsPerClient: 10, maxSessions: 100, maxTasksPerClient: 10, maxTasks: 100, maxTaskBytesPerClient: 10_000, maxTaskBytes: 100_000 });
  const addressKey = (address: string) => clientKey(undefined, address);

  /** Takes `resource` for `client` until refused (at most `most` times); how many it got. */
  async function takeAll(local: LocalShares, resource: ShareResource, client: string, bytes = 0, most = 200): Promise<number> {
    for (let taken = 0; taken < most; taken++) {
      if (!(await local.acquire(resource, client, crypto.randomUUID(), { bytes }, 0)).ok) return taken;
    }
    return most;
  }

  it("leaves room for a newcomer after ten addresses of ten networks each take all they may", async () => {
    for (const resource of ["session", "task"] as const) {
      const local = crowded();
      for (let network = 1; network <= 10; network++) await takeAll(local, resource, await addressKey(`198.51.${network}.7`));
      const newcomer = await local.acquire(resource, await addressKey("203.0.113.9"), "newcomer", {}, 0);
      expect(newcomer.ok ? "served" : newcomer.error.message, resource).toBe("served");
    }
  });

  it("leaves bytes of task arguments for a newcomer after ten addresses each store all they may", async () => {
    const local = crowded();
    for (let network = 1; network <= 10; network++) await takeAll(local, "task", await addressKey(`198.51.${network}.7`), 1_000);
    const newcomer = await local.acquire("task", await addressKey("203.0.113.9"), "newcomer", { bytes: 1_000 }, 0);
    expect(newcomer.ok ? "served" : newcomer.error.message).toBe("served");
  });

  it("counts the addresses of one network (IPv4 /24, IPv6 /48) as one client against what is free", async () => {
    for (const [crowd, neighbour, stranger] of [
      [(i: number) => `198.51.100.${i}`, "198.51.100.200", "203.0.113.9"],
      [(i: number) => `2001:db8:7:${i}::1`, "2001:db8:7:ff::1", "2001:db8:8::1"],
    ] as const) {
      const local = crowded();
      let taken = 0;
      for (let i = 1; i <= 10; i++) taken += await takeAll(local, "session", await addressKey(crowd(i)));
      // Past half the total, the network takes more only while four times what it holds stays free; its neighbours wait with it.
      expect(taken, crowd(0)).toBe(50);
      expect((await local.acquire("session", await addressKey(neighbour), "neighbour", {}, 0)).ok).toBe(false);
      expect((await local.acquire("session", await addressKey(stranger), "stranger", {}, 0)).ok).toBe(true);
    }
  });
});
