import { describe, expect, it } from "vitest";
import { addressKey, checkRate, MAX_TRACKED_KEYS, secondsUntil, WindowLimiter } from "./RateLimiter.ts";

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
  it("never holds more than maxKeys, forgetting the oldest key first", async () => {
    const { clock, limiter: l } = limiter(1, 60, 3);
    for (let i = 0; i < 10; i++) {
      await l.hit(`k${i}`);
      clock.advance(100);
      expect(l.size).toBeLessThanOrEqual(3);
    }
    expect(l.size).toBe(3);
    // k7, k8 and k9 are remembered (blocked: they used their one request); k6 and older were forgotten.
    expect(["k7", "k8", "k9"].map((k) => l.blocked(k) !== undefined)).toEqual([true, true, true]);
    expect(l.blocked("k6")).toBeUndefined();
    // A forgotten client starts a fresh window: the cost of a bounded table.
    expect(await l.hit("k0")).toBeUndefined();
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
    const { clock, limiter: l } = limiter(1, 10, 2);
    await l.hit("a");
    clock.advance(1_000);
    await l.hit("b");
    clock.advance(9_500); // a's window has ended, b's has not
    await l.hit("a"); // renews a: now the younger of the two
    clock.advance(100);
    await l.hit("c"); // full: nothing expired, so the oldest, b, goes
    expect(l.size).toBe(2);
    expect(l.blocked("b")).toBeUndefined();
    expect(l.blocked("a")).toBe(10);
    expect(l.blocked("c")).toBe(10);
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

describe("addressKey", () => {
  it("keeps an IPv4 address as it is", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
  });

  it("reads an IPv4 client of a dual-stack server (::ffff:a.b.c.d) as its IPv4 address", () => {
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("[::FFFF:198.51.100.1]")).toBe("198.51.100.1");
  });

  it("reduces an IPv6 address to its /64, however it is written", () => {
    for (const address of ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::9", "[2001:DB8:0001:0002::1]", "2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:db8:1:2::"]) {
      expect(addressKey(address), address).toBe("2001:db8:1:2::/64");
    }
  });

  it("fills the zeros a :: leaves out, on either side", () => {
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("fe80::1:2:3:4")).toBe("fe80:0:0:0::/64");
    expect(addressKey("2001:db8:0:0:1::")).toBe("2001:db8:0:0::/64");
  });

  it("tells different /64s apart", () => {
    expect(addressKey("2001:db8:1:2::1")).not.toBe(addressKey("2001:db8:1:3::1"));
  });
});
