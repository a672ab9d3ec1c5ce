import { describe, expect, it } from "vitest";
import { McpError } from "../../shared/errors/McpError.ts";
import type { Principal } from "../../shared/auth/Principal.ts";
import { OAuthResourceServer } from "./OAuthResourceServer.ts";
import type { TokenVerifier } from "./TokenVerifier.ts";

const ALICE: Principal = { issuer: "https://auth.example.com", subject: "alice", scopes: ["tools"], claims: {} };
/** A verifier of the user's own kind: one good token, for this resource only. */
const verify: TokenVerifier = async (token, resource) =>
  token === "good" && resource === "https://mcp.example.com/mcp" ? { ok: true, principal: ALICE } : { ok: false, reason: "The access token is not one this server issued" };

const server = (options: Partial<ConstructorParameters<typeof OAuthResourceServer>[0]> = {}) =>
  new OAuthResourceServer({ authorizationServers: ["https://auth.example.com"], scopesSupported: ["tools", "admin"], verify, resource: "https://mcp.example.com/mcp", ...options });
const request = (path = "/mcp", headers: Record<string, string> = {}, method = "POST") => new Request(`https://mcp.example.com${path}`, { method, headers });
const METADATA = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
/** The DPoP challenge every 401 carries beside the Bearer one: the proof algorithms accepted by default. */
const DPOP = 'DPoP algs="ES256 ES384 EdDSA PS256 RS256"';

describe("OAuthResourceServer: metadata", () => {
  it("serves the document at the path-inserted and the root well-known URLs, nowhere else", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = server().metadata(request(path, {}, "GET"));
      expect(await response?.json()).toEqual({
        resource: "https://mcp.example.com/mcp",
        authorization_servers: ["https://auth.example.com"],
        bearer_methods_supported: ["header"],
        scopes_supported: ["tools", "admin"],
        dpop_signing_alg_values_supported: ["ES256", "ES384", "EdDSA", "PS256", "RS256"],
      });
    }
    expect(server().metadata(request("/.well-known/oauth-protected-resource/other", {}, "GET"))).toBeUndefined();
    expect(server().metadata(request("/mcp", {}, "GET"))).toBeUndefined();
  });

  it("names the configured resource for a custom domain, whatever host the request reached", async () => {
    const custom = server({ resource: "https://tools.example.org/mcp" });
    const response = custom.metadata(new Request("https://worker.example.workers.dev/.well-known/oauth-protected-resource/mcp"));
    expect(((await response?.json()) as { resource: string }).resource).toBe("https://tools.example.org/mcp");
  });
});

describe("OAuthResourceServer: authenticate", () => {
  it("admits a good token and gives its principal", async () => {
    expect(await server().authenticate(request("/mcp", { authorization: "Bearer good" }), {})).toEqual({ ok: true, value: ALICE });
  });

  it("answers no token with 401 and a challenge naming the absolute metadata URL and the scopes, no error code", async () => {
    const checked = await server({ requiredScopes: ["tools"] }).authenticate(request(), {});
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.status).toBe(401);
    expect(checked.error.headers?.["www-authenticate"]).toBe(`Bearer resource_metadata="${METADATA}", scope="tools", ${DPOP}`);
  });

  it("answers a refused token with 401 invalid_token, saying why", async () => {
    const checked = await server().authenticate(request("/mcp", { authorization: "Bearer forged" }), {});
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.status).toBe(401);
    expect(checked.error.headers?.["www-authenticate"]).toBe(`Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="The access token is not one this server issued", ${DPOP}`);
  });

  it("answers a token issued for another resource with 401 (the verifier is asked for this resource)", async () => {
    const elsewhere = server({ resource: "https://other.example.com/mcp" });
    const checked = await elsewhere.authenticate(request("/mcp", { authorization: "Bearer good" }), {});
    expect(checked.ok || checked.error.status).toBe(401);
  });

  it("answers a token without a needed scope with 403 insufficient_scope naming every scope needed", async () => {
    const checked = await server().authenticate(request("/mcp", { authorization: "Bearer good" }), {}, ["tools", "admin"]);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.status).toBe(403);
    expect(checked.error.headers?.["www-authenticate"]).toContain('scope="tools admin", error="insufficient_scope"');
    expect(checked.error.message).toBe("The access token lacks the scope admin");
  });

  it("refuses a token in the URL with 400 invalid_request", async () => {
    const checked = await server().authenticate(request("/mcp?access_token=good", { authorization: "Bearer good" }), {});
    expect(checked.ok || [checked.error.status, checked.error.headers?.["www-authenticate"]?.includes('error="invalid_request"')]).toEqual([400, true]);
  });

  it("keeps the configured resource for a plain-http request (TLS ended in front), and refuses a configured http one off loopback", async () => {
    expect(server().resourceOf(new Request("http://internal.test:8080/mcp"))).toBe("https://mcp.example.com/mcp");
    const metadata = server().metadata(new Request("http://internal.test:8080/.well-known/oauth-protected-resource/mcp"));
    expect(((await metadata?.json()) as { resource: string }).resource).toBe("https://mcp.example.com/mcp");
    const checked = await server().authenticate(new Request("http://internal.test:8080/mcp", { method: "POST" }), {});
    expect(checked.ok || [checked.error.status, checked.error.headers?.["www-authenticate"]]).toEqual([401, `Bearer resource_metadata="${METADATA}", ${DPOP}`]);
    expect(() => server({ resource: "http://mcp.example.com/mcp" })).toThrow(/https/);
    expect(() => server({ authorizationServers: [] })).toThrow(/at least one authorization server/);
  });
});

describe("OAuthResourceServer: without a configured resource", () => {
  const derived = (port?: number) => new OAuthResourceServer({ authorizationServers: ["https://auth.example.com"], verify }, { port: port === undefined ? undefined : () => port });

  it("takes it from a loopback request: its whole origin, port included", () => {
    expect(derived().resourceOf(new Request("http://127.0.0.1:8787/mcp"))).toBe("http://127.0.0.1:8787/mcp");
    expect(derived().resourceOf(new Request("http://localhost:9999/message"))).toBe("http://localhost:9999/sse");
    expect(derived().resourceOf(new Request("http://[::1]/mcp"))).toBe("http://[::1]/mcp");
  });

  it("answers a request to any other host with a 500 that names the fix, never a resource named by the client's Host", async () => {
    const sentence = /has no `resource` configured, and this request is addressed to "mcp\.example\.com": set `resource`/;
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error;
      }
      throw new Error("expected a refusal");
    };
    for (const url of ["https://mcp.example.com/mcp", "http://mcp.example.com/sse", "http://mcp.example.com:8787/mcp"]) {
      const error = refusal(() => derived().resourceOf(new Request(url)));
      expect(error, url).toBeInstanceOf(McpError);
      expect([(error as McpError).status, (error as McpError).code, (error as McpError).message]).toEqual([500, -32603, expect.stringMatching(sentence)]);
    }
    expect(refusal(() => derived().metadata(new Request("http://mcp.example.com/.well-known/oauth-protected-resource/mcp")))).toBeInstanceOf(McpError);
    await expect(derived().authenticate(new Request("http://mcp.example.com/mcp", { method: "POST" }), {})).rejects.toThrow(sentence);
  });

  it("lets a process check tokens only where it answers loopback names alone, and says to set `resource` otherwise", () => {
    const sentence = (where: string) => `has no \`resource\` configured, and ${where}: set \`resource\``;
    expect(derived().bindProblem("127.0.0.1", ["localhost", "127.0.0.1", "[::1]"])).toBeUndefined();
    expect(derived().bindProblem("0.0.0.0", ["localhost"])?.message).toContain(sentence('it binds "0.0.0.0", not a loopback host'));
    expect(derived().bindProblem("localhost", ["localhost", "mcp.example.com"])?.message).toContain(sentence('ALLOWED_HOSTS lets it answer "mcp.example.com"'));
    expect(derived().bindProblem("localhost", [])?.message).toContain(sentence("ALLOWED_HOSTS lets it answer any host name"));
    expect(derived().bindProblem("localhost", [])).toBeInstanceOf(TypeError);
    // With `resource` configured, the audience never comes from the request: any name may be answered.
    expect(server().bindProblem("0.0.0.0", [])).toBeUndefined();
  });

  it("where the runtime knows its port, refuses a loopback request addressed to another port: a token for another local server is not for this one", async () => {
    expect(derived(8787).resourceOf(new Request("http://localhost:8787/mcp"))).toBe("http://localhost:8787/mcp");
    for (const url of ["http://localhost:9999/mcp", "http://127.0.0.1/mcp"]) {
      let caught: unknown;
      try {
        derived(8787).resourceOf(new Request(url));
      } catch (error) {
        caught = error;
      }
      expect(caught, url).toBeInstanceOf(McpError);
      expect((caught as McpError).status).toBe(403);
      expect((caught as McpError).message).toMatch(/is bound to port 8787/);
    }
  });
});
