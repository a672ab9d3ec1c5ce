import { describe, expect, it } from "vitest";
import { bearerChallenge } from "./bearerChallenge.ts";

const METADATA = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

describe("bearerChallenge", () => {
  it("names the absolute metadata URL and the scopes, and no error when no token was sent", () => {
    expect(bearerChallenge({ resourceMetadata: METADATA, scopes: ["tools:read", "tools:call"] })).toBe(
      `Bearer resource_metadata="${METADATA}", scope="tools:read tools:call"`,
    );
  });

  it("adds the error and its description when a token was refused", () => {
    expect(bearerChallenge({ resourceMetadata: METADATA, scopes: ["admin"], error: "insufficient_scope", description: "needs admin" })).toBe(
      `Bearer resource_metadata="${METADATA}", scope="admin", error="insufficient_scope", error_description="needs admin"`,
    );
  });

  it("omits an empty scope list", () => {
    expect(bearerChallenge({ resourceMetadata: METADATA, scopes: [], error: "invalid_token" })).toBe(`Bearer resource_metadata="${METADATA}", error="invalid_token"`);
  });

  it("cannot be broken out of: quotes and backslashes are escaped, non-printable characters replaced", () => {
    const header = bearerChallenge({ resourceMetadata: METADATA, error: "invalid_token", description: 'bad "token"\\\r\nX-Injected: 1 — é' });
    expect(header).toBe(`Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="bad \\"token\\"\\\\??X-Injected: 1 ? ?"`);
    expect(() => new Headers({ "www-authenticate": header })).not.toThrow();
  });
});
