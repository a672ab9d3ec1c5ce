import { describe, expect, it } from "vitest";
import { storedSize } from "./storedSize.ts";

describe("storedSize", () => {
  it("counts strings one byte per unit in Latin-1, two once any character is above it", () => {
    expect(storedSize("abcd") - storedSize("")).toBe(4);
    expect(storedSize("abc—") - storedSize("")).toBe(8);
  });

  it("counts bytes as they are, and numbers as eight", () => {
    expect(storedSize(new Uint8Array(1000)) - storedSize(new Uint8Array(0))).toBe(1000);
    expect(storedSize(1.5)).toBe(storedSize(2));
    expect(storedSize(7)).toBe(13);
  });

  it("grows with every item of arrays, maps, sets and objects, keys included", () => {
    const one = storedSize({ a: "x" });
    expect(storedSize({ a: "x", bb: "y" })).toBeGreaterThan(one);
    expect(storedSize(["a", "b", "c"])).toBeGreaterThan(storedSize(["a", "b"]));
    expect(storedSize(new Map([["k", 1]]))).toBeGreaterThan(storedSize(new Map()));
    expect(storedSize(new Set([1, 2]))).toBeGreaterThan(storedSize(new Set([1])));
  });

  it("counts a shared object once, and survives a cycle", () => {
    const big = { text: "x".repeat(10_000) };
    expect(storedSize([big, big])).toBeLessThan(2 * storedSize(big));
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(storedSize(loop)).toBeLessThan(100);
  });

  it("stops counting soon after passing its stop", () => {
    const huge = Array.from({ length: 100_000 }, () => "x".repeat(100));
    const counted = storedSize(huge, 1_000);
    expect(counted).toBeGreaterThan(1_000);
    expect(counted).toBeLessThan(1_200);
  });
});
