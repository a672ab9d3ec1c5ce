/**
 * The DPoP rules through the whole resource server (`OAuthResourceServer.authenticate`): proofs
 * signed by the v2 client's `DpopSession`, tokens from a verifier of the user's own kind.
 */
import { DpopSession } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../shared/auth/Principal.ts";
import { OAuthResourceServer } from "./OAuthResourceServer.ts";
import type { TokenVerifier } from "./TokenVerifier.ts";
import { DpopGuard } from "./DpopGuard.ts";
import { DpopReplayStore } from "./DpopReplayStore.ts";

const RESOURCE = "https://mcp.example.com/mcp";
const METADATA = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const ALGS = 'DPoP algs="ES256 ES384 EdDSA PS256 RS256"';
let session: DpopSession;
let other: DpopSession;

beforeAll(async () => {
  session = await DpopSession.create();
  other = await DpopSession.create();
});

const ALICE: Principal = { issuer: "https://auth.example.com", subject: "alice", scopes: ["tools"], claims: {} };
/** "plain": a bearer token; "bound": one bound to `session`'s key. */
const verify: TokenVerifier = async (token) =>
  token === "plain" ? { ok: true, principal: ALICE } : token === "bound" ? { ok: true, principal: { ...ALICE, keyThumbprint: session.thumbprint } } : { ok: false, reason: "unknown token" };

const server = (dpop?: ConstructorParameters<typeof OAuthResourceServer>[0]["dpop"]) =>
  new OAuthResourceServer({ authorizationServers: ["https://auth.example.com"], verify, resource: RESOURCE, dpop });

async function dpopRequest(token: string, { signer = session, htm = "POST", htu = RESOURCE, url = RESOURCE, proofs }: { signer?: DpopSession; htm?: string; htu?: string; url?: string; proofs?: string[] } = {}) {
  const headers = new Headers({ authorization: `DPoP ${token}` });
  for (const proof of proofs ?? [await signer.buildProof({ htm, htu, accessToken: token })]) headers.append("dpop", proof);
  return new Request(url, { method: "POST", headers });
}

async function refusal(request: Request, resourceServer = server()) {
  const checked = await resourceServer.authenticate(request, {});
  if (checked.ok) throw new Error("expected a refusal");
  return { status: checked.error.status, message: checked.error.message, challenge: checked.error.headers?.["www-authenticate"] };
}

describe("DPoP on the resource server", () => {
  it("admits a bound token under the DPoP scheme with the v2 client's proof, and a plain bearer token beside it", async () => {
    expect(await server().authenticate(await dpopRequest("bound"), {})).toEqual({ ok: true, value: { ...ALICE, keyThumbprint: session.thumbprint } });
    expect(await server().authenticate(new Request(RESOURCE, { method: "POST", headers: { authorization: "Bearer plain" } }), {})).toEqual({ ok: true, value: ALICE });
  });

  it("compares htu on the resource's origin: a request that reached a proxy's backend over http still passes", async () => {
    const request = await dpopRequest("bound", { url: "http://internal.test:8080/mcp" });
    expect((await server().authenticate(request, {})).ok).toBe(true);
  });

  it("never takes the htu's origin from the request's path: a path //other-host/mcp still means this origin", async () => {
    const request = await dpopRequest("bound", { url: "https://mcp.example.com//evil.example/mcp", htu: "https://evil.example/mcp" });
    expect((await refusal(request)).message).toMatch(/"htu"/);
  });

  it("refuses a bound token sent as Bearer (RFC 9449 §7.2), telling so in the DPoP challenge", async () => {
    const refused = await refusal(new Request(RESOURCE, { method: "POST", headers: { authorization: "Bearer bound" } }));
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe(`Bearer resource_metadata="${METADATA}", ${ALGS}, error="invalid_token", error_description="${refused.message}"`);
    expect(refused.message).toMatch(/bound to a key: send it under the DPoP scheme/);
  });

  it("refuses an unbound token under the DPoP scheme", async () => {
    const refused = await refusal(await dpopRequest("plain"));
    expect([refused.status, refused.challenge]).toEqual([401, `Bearer resource_metadata="${METADATA}", ${ALGS}, error="invalid_token", error_description="${refused.message}"`]);
    expect(refused.message).toMatch(/not bound to a key/);
  });

  it("refuses a proof by another key than the token's, a missing one, two of them, and one for another request", async () => {
    const cases: [string, Request, RegExp][] = [
      ["another key", await dpopRequest("bound", { signer: other }), /another key/],
      ["no proof", new Request(RESOURCE, { method: "POST", headers: { authorization: "DPoP bound" } }), /needs a DPoP proof/],
      ["two proofs", await dpopRequest("bound", { proofs: [await session.buildProof({ htm: "POST", htu: RESOURCE, accessToken: "bound" }), await session.buildProof({ htm: "POST", htu: RESOURCE, accessToken: "bound" })] }), /exactly one DPoP header/],
      ["another method", await dpopRequest("bound", { htm: "GET" }), /"htm"/],
      ["another URL", await dpopRequest("bound", { htu: "https://mcp.example.com/sse" }), /"htu"/],
    ];
    for (const [what, request, message] of cases) {
      const refused = await refusal(request);
      expect(refused.status, what).toBe(401);
      expect(refused.message, what).toMatch(message);
      expect(refused.challenge, what).toBe(`Bearer resource_metadata="${METADATA}", ${ALGS}, error="invalid_dpop_proof", error_description="${refused.message.replace(/"/g, '\\"')}"`);
    }
  });

  it("refuses a proof used before (its jti)", async () => {
    const resourceServer = server();
    const proof = await session.buildProof({ htm: "POST", htu: RESOURCE, accessToken: "bound" });
    expect((await resourceServer.authenticate(await dpopRequest("bound", { proofs: [proof] }), {})).ok).toBe(true);
    const refused = await refusal(await dpopRequest("bound", { proofs: [proof] }), resourceServer);
    expect([refused.status, refused.message]).toEqual([401, expect.stringMatching(/used before/)]);
  });

  it("with required, refuses a plain bearer token, and challenges with DPoP alone, naming the metadata", async () => {
    const required = server({ required: true });
    const none = await refusal(new Request(RESOURCE, { method: "POST" }), required);
    expect([none.status, none.challenge]).toEqual([401, `${ALGS}, resource_metadata="${METADATA}"`]);
    const bearer = await refusal(new Request(RESOURCE, { method: "POST", headers: { authorization: "Bearer plain" } }), required);
    expect([bearer.status, bearer.challenge]).toEqual([401, `${ALGS}, resource_metadata="${METADATA}", error="invalid_token", error_description="${bearer.message}"`]);
    expect((await required.authenticate(await dpopRequest("bound"), {})).ok).toBe(true);
    const metadata = (await required.metadata(new Request(METADATA))!.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ dpop_bound_access_tokens_required: true, dpop_signing_alg_values_supported: ["ES256", "ES384", "EdDSA", "PS256", "RS256"] });
  });

  it("takes the algorithms given, refusing a proof in another, and refuses a symmetric one at startup", async () => {
    const edOnly = server({ algorithms: ["EdDSA"] });
    const refused = await refusal(await dpopRequest("bound"), edOnly);
    expect(refused.message).toMatch(/algorithm/);
    expect(refused.challenge).toContain('DPoP algs="EdDSA"');
    expect(() => server({ algorithms: ["HS256"] })).toThrow(/asymmetric/);
    expect(() => server({ algorithms: [] })).toThrow(/asymmetric/);
  });

  it("answers 429 with Retry-After when a principal's proofs fill its share of the replay store", async () => {
    const guard = new DpopGuard({}, new DpopReplayStore({ lifetimeMs: 120_000, maxPerPrincipal: 1 }));
    const principal = { ...ALICE, keyThumbprint: session.thumbprint };
    expect(await guard.check(await dpopRequest("bound"), { scheme: "dpop", token: "bound" }, principal, RESOURCE)).toBeUndefined();
    expect(await guard.check(await dpopRequest("bound"), { scheme: "dpop", token: "bound" }, principal, RESOURCE)).toEqual({ status: 429, message: expect.stringMatching(/retry after 120 s/), retryAfterSeconds: 120 });
  });
});
