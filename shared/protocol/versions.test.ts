import { describe, it, expect } from "vitest";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, isSupportedVersion, negotiateVersion } from "./versions.ts";

describe("negotiateVersion", () => {
  it.each(SUPPORTED_PROTOCOL_VERSIONS)("answers a client asking for %s with that version", (version) => {
    expect(negotiateVersion(version)).toBe(version);
  });

  it.each([
    ["an unknown date", "1999-01-01"],
    ["a future revision", "2099-12-31"],
    ["a near miss", "2025-06-18 "],
    ["undefined", undefined],
    ["null", null],
    ["a number", 20250618],
    ["an object", { version: "2025-06-18" }],
  ])("answers %s with the latest version", (_name, requested) => {
    expect(negotiateVersion(requested)).toBe(LATEST_PROTOCOL_VERSION);
  });

  it("names a latest version that is itself supported and the newest", () => {
    expect(isSupportedVersion(LATEST_PROTOCOL_VERSION)).toBe(true);
    expect(SUPPORTED_PROTOCOL_VERSIONS.at(-1)).toBe(LATEST_PROTOCOL_VERSION);
  });
});
