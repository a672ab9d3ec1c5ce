import { describe, expect, it } from "vitest";
import { KNOWN_TOKEN_TTL_MS, KnownTokens, MAX_KNOWN_TOKENS } from "./KnownTokens.ts";

describe("KnownTokens", () => {
  it("knows a credential from its success until the TTL after the last one", async () => {
    const clock = { now: 0 };
    const known = new KnownTokens({ now: () => clock.now });
    expect(await known.has("Bearer a")).toBe(false);
    expect(await known.has(null)).toBe(false);
    await known.add("Bearer a");
    expect(await known.has("Bearer a")).toBe(true);
    expect(await known.has("Bearer b")).toBe(false);
    clock.now = KNOWN_TOKEN_TTL_MS - 1;
    await known.add("Bearer a");
    clock.now = 2 * KNOWN_TOKEN_TTL_MS - 2;
    expect(await known.has("Bearer a")).toBe(true);
    clock.now = 2 * KNOWN_TOKEN_TTL_MS - 1;
    expect(await known.has("Bearer a")).toBe(false);
    expect(known.size).toBe(0);
  });

  it("holds at most MAX_KNOWN_TOKENS, forgetting the least recently verified first", async () => {
    const known = new KnownTokens({ now: () => 0 });
    await known.add("Bearer first");
    await known.add("Bearer second");
    await known.add("Bearer first"); // verified again: now the youngest
    for (let i = 0; i < MAX_KNOWN_TOKENS; i++) await known.add(`Bearer t${i}`);
    expect(known.size).toBe(MAX_KNOWN_TOKENS);
    expect(await known.has("Bearer second")).toBe(false);
    expect(await known.has(`Bearer t${MAX_KNOWN_TOKENS - 1}`)).toBe(true);
    expect(await known.has("Bearer t0")).toBe(true);
  });
});
