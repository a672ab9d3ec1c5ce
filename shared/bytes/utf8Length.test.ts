import { describe, expect, it } from "vitest";
import { serialisedLength, utf8Length } from "./utf8Length.ts";

describe("utf8Length", () => {
  it("counts what TextEncoder produces", () => {
    for (const text of ["", "plain ascii", "é", "—", "a—b", "😀", "mixed é — 😀 text", "\u0000\u007f\u0080\u07ff\u0800\uffff"]) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).byteLength);
    }
  });
});

describe("serialisedLength", () => {
  it("is one byte per unit for Latin-1 text and two once any character is above U+00FF", () => {
    expect(serialisedLength("abc")).toBe(3);
    expect(serialisedLength("é".repeat(10))).toBe(10);
    expect(serialisedLength(`${"a".repeat(40_000)}—`)).toBe(80_002);
  });
});
