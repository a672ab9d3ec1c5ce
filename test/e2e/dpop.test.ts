/**
 * DPoP (RFC 9449) on the resource server over real HTTP, on whichever runtime `startServer` starts
 * (workerd; Deno and Node through the contract projects' twins of the authorization fixture): a
 * JWT issuer whose keys this test generates mints tokens bound to a key (`cnf.jkt`), proofs are
 * signed by the v2 client's `DpopSession` (or `jose`, for one it would never sign). Checked: the
 * metadata; an MCP client through the v2 client's DPoP support; each refusal's status, challenge
 * and JSON-RPC error; bearer tokens beside DPoP ones, and refused where DPoP is required; the
 * CORS preflight letting the `DPoP` header through.
 */
import { accessTokenHash, Client as ModernClient, DpopSession, StreamableHTTPClientTransport as ModernTransport, withDpop } from "@modelcontextprotocol/client";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../check/runCheck.ts";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, initialize, postJson } from "../support/httpSession.ts";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const ENTRY = "test/fixtures/auth/authWorker.ts";
const ISSUER = "https://issuer.example";
const ALGS = 'DPoP algs="ES256 ES384 EdDSA PS256 RS256"';

type Server = Awaited<ReturnType<typeof startServer>>;
let issuer: TestIssuer;
let session: DpopSession;
let other: DpopSession;
let server: Server;
let strict: Server;

beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
  [session, other] = await Promise.all([DpopSession.create(), DpopSession.create()]);
  const vars = { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks };
  [server, strict] = await Promise.all([startServer({ entry: ENTRY, vars }), startServer({ entry: ENTRY, vars: { ...vars, DPOP_REQUIRED: "true" } })]);
});
afterAll(async () => {
  await server?.dispose();
  await strict?.dispose();
});

/** A token for `on`'s MCP endpoint, bound to `session`'s key unless `bound` is false. */
const tokenFor = (on: Server, subject = "alice", bound = true) => issuer.sign({ sub: subject, aud: `${on.url}/mcp`, ...(bound && { cnf: { jkt: session.thumbprint } }) });

const initializeBody = () => initialize(0, "2025-11-25");

/** POSTs an initialize with `authorization` and, when given, `dpop` proofs (each its own header line). */
async function send(on: Server, authorization: string, proofs: string[] = []): Promise<Response> {
  const headers = new Headers({ "content-type": "application/json", accept: BOTH, authorization });
  for (const proof of proofs) headers.append("dpop", proof);
  return postJson(`${on.url}/mcp`, initializeBody(), { headers });
}

const proofFor = (on: Server, token: string, { signer = session, htm = "POST", path = "/mcp" } = {}) => signer.buildProof({ htm, htu: `${on.url}${path}`, accessToken: token });

/** The refusal's status, challenge and JSON-RPC error code and message. */
async function refusalOf(response: Response) {
  const body = (await response.json()) as { error: { code: number; message: string } };
  return { status: response.status, challenge: response.headers.get("www-authenticate"), code: body.error.code, message: body.error.message };
}

const escaped = (message: string) => message.replace(/["\\]/g, "\\$&");

describe("DPoP: the metadata", () => {
  it("names the proof algorithms, and where DPoP is required, says so", async () => {
    const open = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(open.dpop_signing_alg_values_supported).toEqual(["ES256", "ES384", "EdDSA", "PS256", "RS256"]);
    expect(open).not.toHaveProperty("dpop_bound_access_tokens_required");
    const required = (await (await fetch(`${strict.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(required).toMatchObject({ dpop_bound_access_tokens_required: true, dpop_signing_alg_values_supported: ["ES256", "ES384", "EdDSA", "PS256", "RS256"] });
  });

  it("lets a browser client send the DPoP header (CORS preflight)", async () => {
    const preflight = await fetch(`${server.url}/mcp`, { method: "OPTIONS", headers: { origin: server.url, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
    expect(preflight.headers.get("access-control-allow-headers")?.split(", ")).toContain("dpop");
  });
});

describe("DPoP: a client", () => {
  for (const [name, on] of [["beside bearer tokens", () => server], ["where DPoP is required", () => strict]] as const) {
    it(`the v2 client's DPoP support calls tools with a bound token, a fresh proof each request (${name})`, async () => {
      const target = on();
      const token = await tokenFor(target);
      const client = new ModernClient({ name: "dpop-client", version: "1.0.0" });
      const transport = new ModernTransport(new URL(`${target.url}/mcp`), { authProvider: { token: async () => token }, fetch: withDpop(session, () => token)(fetch) });
      await client.connect(transport);
      const whoami = async () => JSON.parse(((await client.callTool({ name: "whoami", arguments: {} })).content as { text: string }[])[0]!.text);
      expect(await whoami()).toMatchObject({ issuer: ISSUER, subject: "alice" });
      expect((await whoami()).subject).toBe("alice");
      await client.close();
    });
  }

  it("a bearer token still passes where DPoP is not required", async () => {
    const response = await send(server, `Bearer ${await tokenFor(server, "bob", false)}`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });
});

describe("DPoP: refusals", () => {
  it("refuses a bound token sent as Bearer (RFC 9449 §7.2): 401 invalid_token in the DPoP challenge", async () => {
    const refused = await refusalOf(await send(server, `Bearer ${await tokenFor(server)}`));
    expect(refused).toMatchObject({ status: 401, code: -32600, message: expect.stringMatching(/bound to a key: send it under the DPoP scheme/) });
    expect(refused.challenge).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp", ${ALGS}, error="invalid_token", error_description="${escaped(refused.message)}"`);
  });

  it("refuses an unbound token under the DPoP scheme: 401 invalid_token", async () => {
    const token = await tokenFor(server, "alice", false);
    const refused = await refusalOf(await send(server, `DPoP ${token}`, [await proofFor(server, token)]));
    expect(refused).toMatchObject({ status: 401, code: -32600, message: expect.stringMatching(/not bound to a key/) });
    expect(refused.challenge).toContain(`${ALGS}, error="invalid_token"`);
  });

  it("refuses each bad proof with 401 invalid_dpop_proof, saying which check failed", async () => {
    const token = await tokenFor(server);
    // The v2 client signs only fresh proofs: a stale one is signed with jose, by a key of the test's own bound to its own token.
    const mine = await generateKeyPair("ES256");
    const jwk = await exportJWK(mine.publicKey);
    const mineToken = await issuer.sign({ sub: "alice", aud: `${server.url}/mcp`, cnf: { jkt: await calculateJwkThumbprint(jwk) } });
    const stale = await new SignJWT({ htm: "POST", htu: `${server.url}/mcp`, jti: crypto.randomUUID(), ath: await accessTokenHash(mineToken) })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3_600)
      .sign(mine.privateKey);
    const staleRefused = await refusalOf(await send(server, `DPoP ${mineToken}`, [stale]));
    expect([staleRefused.status, staleRefused.message]).toEqual([401, expect.stringMatching(/older than/)]);
    const cases: [string, string[], RegExp][] = [
      ["no proof", [], /needs a DPoP proof/],
      ["two proofs", [await proofFor(server, token), await proofFor(server, token)], /exactly one DPoP header/],
      ["another key", [await proofFor(server, token, { signer: other })], /another key/],
      ["another method", [await proofFor(server, token, { htm: "GET" })], /"htm"/],
      ["another URL", [await proofFor(server, token, { path: "/sse" })], /"htu"/],
      ["another token's ath", [await session.buildProof({ htm: "POST", htu: `${server.url}/mcp`, accessToken: "another" })], /"ath"/],
    ];
    for (const [what, proofs, message] of cases) {
      const refused = await refusalOf(await send(server, `DPoP ${token}`, proofs));
      expect([refused.status, refused.code], what).toEqual([401, -32600]);
      expect(refused.message, what).toMatch(message);
      expect(refused.challenge, what).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp", ${ALGS}, error="invalid_dpop_proof", error_description="${escaped(refused.message)}"`);
    }
  });

  it("takes a proof once: the same proof again is refused", async () => {
    const token = await tokenFor(server);
    const proof = await proofFor(server, token);
    const first = await send(server, `DPoP ${token}`, [proof]);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const again = await refusalOf(await send(server, `DPoP ${token}`, [proof]));
    expect([again.status, again.message]).toEqual([401, expect.stringMatching(/used before/)]);
    expect(again.challenge).toContain('error="invalid_dpop_proof"');
  });

  it("where DPoP is required, refuses a bearer token, and challenges with DPoP alone", async () => {
    const metadata = `${strict.url}/.well-known/oauth-protected-resource/mcp`;
    const none = await fetch(`${strict.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: BOTH }, body: JSON.stringify(initializeBody()) });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe(`${ALGS}, resource_metadata="${metadata}", scope="mcp"`);
    await none.arrayBuffer();
    const refused = await refusalOf(await send(strict, `Bearer ${await tokenFor(strict, "bob", false)}`));
    expect(refused).toMatchObject({ status: 401, code: -32600, message: expect.stringMatching(/only DPoP-bound/) });
    expect(refused.challenge).toBe(`${ALGS}, resource_metadata="${metadata}", scope="mcp", error="invalid_token", error_description="${escaped(refused.message)}"`);
  });
});

describe("durable-mcp check against a server that takes DPoP-bound tokens only", () => {
  it("follows the DPoP challenge to the protected-resource metadata, as it follows a Bearer one", async () => {
    const findings = await runCheck({ url: `${strict.url}/mcp`, skip: ["report", "discover", "per-call", "sdk", "sse", "cors"] });
    const oauth = findings.filter((f) => f.probe === "oauth");
    expect(oauth.map((f) => f.summary).join(" | ")).not.toMatch(/without a Bearer or DPoP challenge/);
    expect(oauth.some((f) => /resource_metadata|metadata/.test(f.summary))).toBe(true);
  });
});
