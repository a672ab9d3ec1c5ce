import { describe, expect, it } from "vitest";
import { addressKey, prefixKey } from "../../shared/shares/addressKey.ts";
import { checkRate, MAX_TRACKED_KEYS, secondsUntil, WindowLimiter } from "./RateLimiter.ts";

/** A clock the test moves by hand: no real waiting. */
function manualClock(start = 1_000_000) {
  const clock = { now: start, advance: (ms: number) => void (clock.now += ms) };
  return clock;
}

/** A limiter on a manual clock. */
function limiter(limit: number, periodSeconds: number, maxKeys?: number) {
  const clock = manualClock();
  return { clock, limiter: new WindowLimiter({ limit, periodSeconds }, { maxKeys, now: () => clock.now }) };
}

describe("WindowLimiter: one key", () => {
  it("lets `limit` requests through in a window, then answers the whole seconds left to wait", async () => {
    const { clock, limiter: l } = limiter(3, 60);
    for (let i = 0; i < 3; i++) expect(await l.hit("a")).toBeUndefined();
    clock.advance(10_500);
    // 49.5 s of the window remain: rounded up, never down, so a client that waits is let in.
    expect(await l.hit("a")).toBe(50);
    expect(await l.hit("a")).toBe(50);
  });

  it("says at least 1 second, even in the window's last milliseconds", async () => {
    const { clock, limiter: l } = limiter(1, 10);
    await l.hit("a");
    clock.advance(9_999);
    expect(await l.hit("a")).toBe(1);
  });

  it("answers blocked() without counting: only a key at its limit is blocked", async () => {
    const { clock, limiter: l } = limiter(2, 60);
    expect(l.blocked("a")).toBeUndefined();
    await l.hit("a");
    for (let i = 0; i < 5; i++) expect(l.blocked("a")).toBeUndefined();
    // Asking did not count: the second request is still within the limit.
    expect(await l.hit("a")).toBeUndefined();
    clock.advance(20_000);
    expect(l.blocked("a")).toBe(40);
    expect(l.blocked("a")).toBe(40);
    expect(l.blocked("b")).toBeUndefined();
  });

  it("starts a fresh window once the period has passed", async () => {
    const { clock, limiter: l } = limiter(1, 30);
    await l.hit("a");
    expect(await l.hit("a")).toBe(30);
    clock.advance(29_999);
    expect(l.blocked("a")).toBe(1);
    clock.advance(1);
    expect(l.blocked("a")).toBeUndefined();
    expect(await l.hit("a")).toBeUndefined();
    // The new window runs from the first request in it, not from the old window's end.
    clock.advance(5_000);
    expect(await l.hit("a")).toBe(25);
  });

  it("counts keys apart", async () => {
    const { limiter: l } = limiter(1, 60);
    expect(await l.hit("a")).toBeUndefined();
    expect(await l.hit("b")).toBeUndefined();
    expect(await l.hit("a")).toBe(60);
    expect(l.size).toBe(2);
  });

  it("uses the real clock when none is given", async () => {
    const l = new WindowLimiter({ limit: 1, periodSeconds: 60 });
    await l.hit("a");
    const wait = await l.hit("a");
    expect(wait === 59 || wait === 60).toBe(true);
  });
});

describe("WindowLimiter: the bound on keys", () => {
  it("never holds more than maxKeys: past it, the oldest window still under its limit makes room", async () => {
    const { clock, limiter: l } = limiter(2, 60, 3);
    for (let i = 0; i < 10; i++) {
      await l.hit(`k${i}`);
      clock.advance(100);
      expect(l.size).toBeLessThanOrEqual(3);
    }
    expect(l.size).toBe(3);
    // k7, k8 and k9 are remembered with one request each; k6 and older were forgotten.
    expect(await l.hit("k9")).toBeUndefined();
    expect(l.blocked("k9")).toBe(60);
    expect(l.blocked("k6")).toBeUndefined();
    // A forgotten client under its limit starts a fresh window: the cost of a bounded table.
    expect(await l.hit("k0")).toBeUndefined();
  });

  it("never forgets a limited key to make room: a newcomer is refused while every window held is limited, and let in once one ends", async () => {
    const { clock, limiter: l } = limiter(1, 60, 3);
    for (const key of ["a", "b", "c"]) expect(await l.hit(key)).toBeUndefined();
    clock.advance(10_000);
    // Refused until the first window held ends (in 50 s), not counted, and a, b and c stay.
    expect(await l.hit("d")).toBe(50);
    expect(l.blocked("d")).toBe(50);
    expect(l.size).toBe(3);
    expect(["a", "b", "c"].map((k) => l.blocked(k))).toEqual([50, 50, 50]);
    clock.advance(50_000);
    expect(l.blocked("d")).toBeUndefined();
    expect(await l.hit("d")).toBeUndefined();
    expect(l.blocked("d")).toBe(60);
  });

  it("forgets a window under its limit before a limited one, however old", async () => {
    const { clock, limiter: l } = limiter(2, 60, 3);
    await l.hit("limited");
    await l.hit("limited");
    clock.advance(1_000);
    await l.hit("young-1");
    await l.hit("young-2");
    await l.hit("new");
    expect(l.size).toBe(3);
    expect(l.blocked("limited")).toBe(59);
    expect(await l.hit("young-1")).toBeUndefined(); // forgotten: a fresh window
  });

  it("forgets expired windows before a live one: the oldest window is the first to end", async () => {
    const { clock, limiter: l } = limiter(1, 10, 3);
    await l.hit("old-1");
    await l.hit("old-2");
    clock.advance(5_000);
    await l.hit("live");
    clock.advance(6_000); // old-1 and old-2 have expired; live has 4 s left
    await l.hit("new");
    await l.hit("newer");
    expect(l.size).toBe(3);
    expect(l.blocked("live")).toBe(4);
    expect(l.blocked("new")).toBe(10);
  });

  it("refuses a bound that is not a whole number of at least 1", () => {
    for (const maxKeys of [0, -1, 1.5, Number.NaN]) expect(() => new WindowLimiter({ limit: 1, periodSeconds: 1 }, { maxKeys })).toThrow(TypeError);
  });

  it("evicts by window start: a key whose window was renewed counts as young", async () => {
    const { clock, limiter: l } = limiter(2, 10, 2);
    await l.hit("a");
    clock.advance(1_000);
    await l.hit("b");
    clock.advance(9_500); // a's window has ended, b's has not
    await l.hit("a"); // renews a: now the younger of the two
    clock.advance(100);
    await l.hit("c"); // full: nothing expired, so the oldest, b, goes
    expect(l.size).toBe(2);
    // b was forgotten: two more requests fit its fresh window (its old one held one already).
    expect(await l.hit("b")).toBeUndefined();
    expect(await l.hit("b")).toBeUndefined();
    expect(l.blocked("b")).toBe(10);
  });

  it("does not evict anyone for a key it already holds", async () => {
    const { limiter: l } = limiter(5, 60, 2);
    await l.hit("a");
    await l.hit("b");
    for (let i = 0; i < 4; i++) await l.hit("a");
    expect(l.size).toBe(2);
    expect(l.blocked("a")).toBe(60);
    expect(await l.hit("b")).toBeUndefined();
  });

  it("defaults to MAX_TRACKED_KEYS", async () => {
    const l = new WindowLimiter({ limit: 1, periodSeconds: 60 }, { now: () => 0 });
    for (let i = 0; i < MAX_TRACKED_KEYS + 5; i++) await l.hit(`k${i}`);
    expect(l.size).toBe(MAX_TRACKED_KEYS);
  });
});

describe("WindowLimiter: prefixes, when the table is crowded", () => {
  /** `n` distinct IPv6 /64s inside one /48, as a client holding that /48 can make them. */
  const sixtyFours = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `2001:db8:1:${(from + i).toString(16)}::1`);

  it("a flood of 25,000 /64s from one IPv6 /48 does not flush a limited address, and is limited as one prefix", async () => {
    const { limiter: l } = limiter(3, 60);
    for (let i = 0; i < 3; i++) await l.hit(addressKey("203.0.113.7"), prefixKey("203.0.113.7"));
    expect(l.blocked(addressKey("203.0.113.7"), prefixKey("203.0.113.7"))).toBe(60);
    const flood = sixtyFours(25_000);
    let refused = 0;
    for (const address of flood) if ((await l.hit(addressKey(address), prefixKey(address))) !== undefined) refused++;
    expect(l.size).toBeLessThanOrEqual(MAX_TRACKED_KEYS);
    expect(l.blocked(addressKey("203.0.113.7"), prefixKey("203.0.113.7"))).toBe(60);
    // Once crowded, the /48 is one client: after its limit, every further /64 of it is refused.
    expect(refused).toBeGreaterThan(flood.length - MAX_TRACKED_KEYS);
    const next = "2001:db8:1:ffff::1";
    expect(l.blocked(addressKey(next), prefixKey(next))).toBe(60);
    // An address of another prefix is still counted, and let in.
    expect(await l.hit(addressKey("198.51.100.1"), prefixKey("198.51.100.1"))).toBeUndefined();
  });

  it("counts an IPv4 flood by /24 once crowded: 30,000 addresses over 120 /24s leave room and every limited key", async () => {
    const { limiter: l } = limiter(3, 60);
    const victim = "192.0.2.10";
    for (let i = 0; i < 3; i++) await l.hit(addressKey(victim), prefixKey(victim));
    for (let i = 0; i < 30_000; i++) {
      const address = `10.${Math.floor(i / 250) % 120}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
      await l.hit(addressKey(address), prefixKey(address));
    }
    expect(l.size).toBeLessThanOrEqual(MAX_TRACKED_KEYS);
    expect(l.blocked(addressKey(victim), prefixKey(victim))).toBe(60);
    expect(await l.hit(addressKey("198.51.100.1"), prefixKey("198.51.100.1"))).toBeUndefined();
  });

  it("keeps its own window for an address it already counts, and counts new ones of a prefix under it only while crowded", async () => {
    const { limiter: l } = limiter(2, 60, 8);
    // Not crowded: each /64 has its own window.
    for (const address of sixtyFours(4)) await l.hit(addressKey(address), prefixKey(address));
    expect(l.size).toBe(4);
    for (const address of sixtyFours(2, 100)) expect(await l.hit(addressKey(address), prefixKey(address))).toBeUndefined();
    expect(l.size).toBe(6);
    // Crowded (three quarters of 8): new /64s of the same /48 share one window, the prefix's.
    const later = ["2001:db8:1:200::1", "2001:db8:1:300::1", "2001:db8:1:400::1"];
    expect(await l.hit(addressKey(later[0]!), prefixKey(later[0]!))).toBeUndefined();
    expect(l.size).toBe(7);
    expect(await l.hit(addressKey(later[1]!), prefixKey(later[1]!))).toBeUndefined();
    expect(l.size).toBe(7);
    expect(await l.hit(addressKey(later[2]!), prefixKey(later[2]!))).toBe(60);
    // An address with a window of its own keeps it, but is refused while its prefix is limited.
    const [first] = sixtyFours(1);
    expect(l.blocked(addressKey(first!))).toBeUndefined();
    expect(l.blocked(addressKey(first!), prefixKey(first!))).toBe(60);
  });
});

describe("checkRate", () => {
  it("accepts whole numbers of at least 1 and returns the rate", () => {
    const rate = { limit: 1, periodSeconds: 1 };
    expect(checkRate("rate", rate)).toBe(rate);
  });

  it.each([
    { limit: 0, periodSeconds: 60 },
    { limit: -1, periodSeconds: 60 },
    { limit: 1.5, periodSeconds: 60 },
    { limit: Number.NaN, periodSeconds: 60 },
    { limit: Number.POSITIVE_INFINITY, periodSeconds: 60 },
    { limit: 10, periodSeconds: 0 },
    { limit: 10, periodSeconds: 0.5 },
    { limit: "10", periodSeconds: 60 },
    { limit: 10 },
  ])("refuses %j with a TypeError naming the setting", (rate) => {
    expect(() => checkRate("rateLimits.perAddress", rate as never)).toThrow(TypeError);
    expect(() => checkRate("rateLimits.perAddress", rate as never)).toThrow(/^rateLimits\.perAddress must be \{ limit, periodSeconds \}/);
  });

  it("is applied by the WindowLimiter constructor", () => {
    expect(() => new WindowLimiter({ limit: 0, periodSeconds: 60 })).toThrow(TypeError);
  });
});

describe("secondsUntil", () => {
  it("rounds up to whole seconds, and says at least 1", () => {
    expect(secondsUntil(10_000, 0)).toBe(10);
    expect(secondsUntil(10_001, 0)).toBe(11);
    expect(secondsUntil(1, 0)).toBe(1);
    expect(secondsUntil(0, 0)).toBe(1);
    expect(secondsUntil(0, 5_000)).toBe(1);
  });
});
