import { describe, it, expect } from "vitest";
import { logId } from "./logId.ts";

describe("logId", () => {
  const id = "3f9c2a7e1b4d4e0f8a6c5d2b1e0f9a8c";

  it("is deterministic: the same id gives the same tag", () => {
    expect(logId(id)).toBe(logId(id));
  });

  it("is 12 lower-case hex characters", () => {
    expect(logId(id)).toMatch(/^[0-9a-f]{12}$/);
    expect(logId("")).toMatch(/^[0-9a-f]{12}$/);
  });

  it("differs for different ids, even ids one character apart", () => {
    const other = `${id.slice(0, -1)}d`;
    expect(logId(other)).not.toBe(logId(id));
    const tags = new Set(Array.from({ length: 1_000 }, (_, i) => logId(`${id}-${i}`)));
    expect(tags.size).toBe(1_000);
  });

  it("does not contain the id or any 12-character piece of it", () => {
    const tag = logId(id);
    expect(tag).not.toContain(id);
    for (let i = 0; i + 12 <= id.length; i++) expect(tag).not.toBe(id.slice(i, i + 12));
  });

  it("is the first 48 bits of the 64-bit FNV-1a hash of the UTF-8 bytes", () => {
    // Published FNV-1a 64 test vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c, "foobar" -> 85944171f73967e8.
    expect(logId("")).toBe("cbf29ce48422");
    expect(logId("a")).toBe("af63dc4c8601");
    expect(logId("foobar")).toBe("85944171f739");
  });
});
