import { describe, expect, it } from "vitest";
import { dpopChallenge } from "./dpopChallenge.ts";

describe("dpopChallenge", () => {
  it("names the algorithms accepted, alone when nothing was refused", () => {
    expect(dpopChallenge({ algorithms: ["ES256", "EdDSA"] })).toBe('DPoP algs="ES256 EdDSA"');
  });

  it("names the metadata and scopes when it is the only challenge, and the error with its description", () => {
    expect(dpopChallenge({ algorithms: ["ES256"], resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scopes: ["mcp"], error: "invalid_dpop_proof", description: 'bad "proof"\r\n' })).toBe(
      'DPoP algs="ES256", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp", error="invalid_dpop_proof", error_description="bad \\"proof\\"??"',
    );
  });
});
