import { describe, expect, it } from "vitest";
import { canonicalResource, metadataPaths, protectedResourceMetadata } from "./protectedResource.ts";

describe("protectedResourceMetadata", () => {
  it("names the canonical endpoint, its authorization servers, header-only bearer tokens and the scopes", () => {
    expect(
      protectedResourceMetadata({ resource: "https://MCP.example.com/mcp/", authorizationServers: ["https://auth.example.com"], scopesSupported: ["tools"], resourceName: "Weather" }),
    ).toEqual({
      resource: "https://mcp.example.com/mcp",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["tools"],
      resource_name: "Weather",
    });
  });

  it("names the DPoP proof algorithms accepted, and says so when every token must be DPoP-bound (RFC 9728 §2)", () => {
    const base = { resource: "https://mcp.example.com/mcp", authorizationServers: ["https://auth.example.com"] };
    const allowed = protectedResourceMetadata({ ...base, dpop: { algorithms: ["ES256"], required: false } });
    expect(allowed.dpop_signing_alg_values_supported).toEqual(["ES256"]);
    expect(allowed).not.toHaveProperty("dpop_bound_access_tokens_required");
    expect(protectedResourceMetadata({ ...base, dpop: { algorithms: ["ES256", "EdDSA"], required: true } })).toMatchObject({
      dpop_signing_alg_values_supported: ["ES256", "EdDSA"],
      dpop_bound_access_tokens_required: true,
    });
  });
});

describe("metadataPaths", () => {
  it("serves the path-inserted URL first, then the root one", () => {
    expect(metadataPaths("https://mcp.example.com/mcp")).toEqual(["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]);
  });

  it("serves only the root URL for an endpoint at the root", () => {
    expect(metadataPaths("https://mcp.example.com")).toEqual(["/.well-known/oauth-protected-resource"]);
  });
});

describe("canonicalResource", () => {
  it("lower-cases scheme and host and drops a trailing slash", () => {
    expect(canonicalResource("HTTPS://Example.COM:8443/Mcp/")).toBe("https://example.com:8443/Mcp");
    expect(canonicalResource("http://127.0.0.1:8787/mcp")).toBe("http://127.0.0.1:8787/mcp");
  });

  it("refuses relative URLs, plain http off loopback, queries and fragments, naming the value", () => {
    for (const bad of ["/mcp", "http://mcp.example.com/mcp", "https://mcp.example.com/mcp?x=1", "https://mcp.example.com/mcp#f"]) {
      expect(() => canonicalResource(bad)).toThrow(JSON.stringify(bad));
    }
  });
});
