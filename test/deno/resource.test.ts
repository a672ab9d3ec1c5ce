/**
 * On Deno, the audience a token must name is never taken from a Host header a client writes,
 * with the authorization fixture (`test/fixtures/auth/`) on its Deno entry:
 * - reachable by a name that is not loopback (`ALLOWED_HOSTS`) and no `resource` configured, the
 *   server refuses to start, exiting 1 with the sentence that says to set it;
 * - with `resource` configured, it serves that name's metadata and challenge;
 * - on loopback, a request addressed to another port (`Host: localhost:1`) is refused 403: the
 *   resource is this server's own origin, port included, not the one the client names.
 * Requests with a Host of the test's choosing go over `node:http` (fetch does not let one be set).
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const MAIN = "test/fixtures/auth/authDeno.ts";
const ISSUER = "https://issuer.example";

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
});

/** One request to `url` with the given Host header: its status, `WWW-Authenticate` and body. */
function withHost(url: string, host: string, method = "GET"): Promise<{ status: number; challenge: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream" } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, challenge: response.headers["www-authenticate"] as string | undefined, body }));
    });
    sent.on("error", reject);
    sent.end(method === "POST" ? "{}" : undefined);
  });
}

describe("authorization without a resource, on Deno", () => {
  it("refuses to start when ALLOWED_HOSTS lets it answer a name that is not loopback", { timeout: 60_000 }, async () => {
    await expect(startDenoServer({ main: MAIN, vars: { JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, ALLOWED_HOSTS: "mcp.example.com" } })).rejects.toThrow(
      // One JSON line on stderr (`refuseToStart`): the sentence's quotes arrive escaped.
      /Deno exited with 1 before serving:[\s\S]*"event":"config.invalid"[\s\S]*has no `resource` configured, and ALLOWED_HOSTS lets it answer \\"mcp\.example\.com\\": set `resource`/,
    );
  });

  describe("on loopback", () => {
    let server: Awaited<ReturnType<typeof startDenoServer>>;
    beforeAll(async () => {
      server = await startDenoServer({ main: MAIN, vars: { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks } });
    }, 60_000);
    afterAll(() => server?.dispose());

    it("takes the resource from its own origin, and refuses a request addressed to another port with 403", async () => {
      const own = await withHost(`${server.url}/mcp`, `localhost:${server.port}`, "POST");
      expect(own.status).toBe(401);
      expect(own.challenge).toBe(`Bearer resource_metadata="http://localhost:${server.port}/.well-known/oauth-protected-resource/mcp", scope="mcp", DPoP algs="ES256 ES384 EdDSA PS256 RS256"`);
      const other = await withHost(`${server.url}/mcp`, "localhost:1", "POST");
      expect(other.status).toBe(403);
      expect(JSON.parse(other.body).error.message).toBe(`This server is bound to port ${server.port}, and this request is addressed to port 1: it is for another server`);
      expect((await withHost(`${server.url}/.well-known/oauth-protected-resource/mcp`, "localhost:1")).status).toBe(403);
    });
  });
});

describe("authorization with a resource, on Deno", () => {
  let server: Awaited<ReturnType<typeof startDenoServer>>;
  beforeAll(async () => {
    server = await startDenoServer({ main: MAIN, vars: { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, ALLOWED_HOSTS: "mcp.example.com", RESOURCE: "https://mcp.example.com/mcp" } });
  }, 60_000);
  afterAll(() => server?.dispose());

  it("starts, and serves the configured resource's metadata and challenge to a request for that name (TLS ended in front)", async () => {
    const metadata = await withHost(`${server.url}/.well-known/oauth-protected-resource/mcp`, "mcp.example.com");
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.body).resource).toBe("https://mcp.example.com/mcp");
    const challenge = await withHost(`${server.url}/mcp`, "mcp.example.com", "POST");
    expect(challenge.status).toBe(401);
    expect(challenge.challenge).toBe('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp", DPoP algs="ES256 ES384 EdDSA PS256 RS256"');
  });
});
