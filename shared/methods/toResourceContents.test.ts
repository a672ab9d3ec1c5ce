import { describe, it, expect } from "vitest";
import { toBase64 } from "../bytes/toBase64.ts";
import { toResourceContents } from "./toResourceContents.ts";

describe("toBase64", () => {
  it.each([
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
  ])("encodes %j as %j (RFC 4648 §10)", (input, output) => {
    expect(toBase64(new TextEncoder().encode(input))).toBe(output);
  });

  it("encodes every byte value and more than one chunk losslessly", () => {
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256);
    const decoded = Uint8Array.from(atob(toBase64(bytes)), (c) => c.charCodeAt(0));
    expect(decoded).toEqual(bytes);
  });
});

describe("toResourceContents", () => {
  it("leaves out mimeType when the definition has none", () => {
    expect(toResourceContents("x", "a://b", undefined, "R")).toEqual([{ uri: "a://b", text: "x" }]);
    expect(toResourceContents(new Uint8Array([104, 105]), "a://b", undefined, "R")).toEqual([{ uri: "a://b", blob: "aGk=" }]);
  });

  it("keeps an empty string as text", () => {
    expect(toResourceContents("", "a://b", "text/plain", "R")).toEqual([{ uri: "a://b", mimeType: "text/plain", text: "" }]);
  });

  it.each([
    ["null", null, "R read returned null"],
    ["an object", { text: "x" }, "R read returned object"],
    ["an item without uri", [{ text: "x" }], 'contents[0] without a string "uri"'],
    ["an item with both text and blob", [{ uri: "a://b", text: "x", blob: "AA==" }], 'exactly one of "text" or "blob"'],
    ["an item with neither", [{ uri: "a://b" }], 'exactly one of "text" or "blob"'],
    ["an item with a numeric text", [{ uri: "a://b", text: 5 }], 'exactly one of "text" or "blob"'],
    ["an item with a bad mimeType", [{ uri: "a://b", text: "x", mimeType: 1 }], '"mimeType" that is not a string'],
    ["an item that is an array", [["a://b"]], "contents[0] as an array"],
  ])("refuses %s with a TypeError naming the problem", (_name, value, message) => {
    expect(() => toResourceContents(value as never, "a://b", undefined, "R")).toThrow(message);
  });
});
