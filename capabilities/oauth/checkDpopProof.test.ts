import { DpopSession } from "@modelcontextprotocol/client";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { accessTokenHash, asymmetricOnly, checkDpopProof, PROOF_CLOCK_SKEW_SECONDS, PROOF_MAX_AGE_SECONDS } from "./checkDpopProof.ts";

const URL_ = "https://mcp.example.com/mcp";
const TOKEN = "the-access-token";
const ALGORITHMS = ["ES256", "EdDSA"];
const expected = { method: "POST", url: URL_, accessToken: TOKEN, algorithms: ALGORITHMS };

let session: DpopSession;
let pair: CryptoKeyPair;
let jwk: JWK;

beforeAll(async () => {
  session = await DpopSession.create();
  pair = await generateKeyPair("ES256", { extractable: true });
  jwk = await exportJWK(pair.publicKey);
});

interface ProofParts {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  key?: CryptoKey | Uint8Array;
}

/** A proof signed with jose, the header and claims a valid one has unless `parts` say otherwise. */
async function proof({ header = {}, claims = {}, key = pair.privateKey }: ProofParts = {}): Promise<string> {
  return new SignJWT({ htm: "POST", htu: URL_, ath: await accessTokenHash(TOKEN), jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk, ...header } as never)
    .setIssuedAt(typeof claims.iat === "number" ? claims.iat : undefined)
    .sign(key);
}

async function reasonOf(value: string, overrides: Partial<typeof expected> = {}): Promise<string> {
  const checked = await checkDpopProof(value, { ...expected, ...overrides });
  expect(checked.ok).toBe(false);
  return checked.ok ? "" : checked.reason;
}

describe("checkDpopProof", () => {
  it("accepts the v2 client's proof for this request and answers its key's thumbprint and jti", async () => {
    const value = await session.buildProof({ htm: "POST", htu: `${URL_}?ignored=1#too`, accessToken: TOKEN });
    const checked = await checkDpopProof(value, expected);
    expect(checked).toEqual({ ok: true, thumbprint: session.thumbprint, jti: expect.any(String) });
  });

  it("at a token endpoint, where no token comes with the proof, checks all but ath", async () => {
    const atToken = { method: "POST", url: "https://auth.example.com/token", algorithms: ALGORITHMS };
    const value = await session.buildProof({ htm: "POST", htu: "https://auth.example.com/token" });
    expect(await checkDpopProof(value, atToken)).toEqual({ ok: true, thumbprint: session.thumbprint, jti: expect.any(String) });
    expect(await checkDpopProof(await session.buildProof({ htm: "POST", htu: URL_ }), atToken)).toMatchObject({ ok: false, reason: expect.stringMatching(/"htu"/) });
  });

  it("compares htu after normalization, ignoring query and fragment (RFC 9449 §4.3)", async () => {
    for (const htu of ["https://MCP.example.com:443/mcp", `${URL_}?a=b`, `${URL_}#x`]) {
      expect((await checkDpopProof(await proof({ claims: { htu } }), expected)).ok, htu).toBe(true);
    }
  });

  it("refuses a proof for another method or URL", async () => {
    expect(await reasonOf(await proof({ claims: { htm: "GET" } }))).toMatch(/"htm"/);
    for (const htu of ["https://mcp.example.com/other", "http://mcp.example.com/mcp", "https://evil.example/mcp", "not a url"]) {
      expect(await reasonOf(await proof({ claims: { htu } })), htu).toMatch(/"htu"/);
    }
  });

  it("refuses a stale proof and one from the future, past the skew", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await reasonOf(await proof({ claims: { iat: now - PROOF_MAX_AGE_SECONDS - PROOF_CLOCK_SKEW_SECONDS - 5 } }))).toMatch(/older than/);
    expect(await reasonOf(await proof({ claims: { iat: now + PROOF_CLOCK_SKEW_SECONDS + 5 } }))).toMatch(/in the future/);
    // Within the window either side, it passes.
    expect((await checkDpopProof(await proof({ claims: { iat: now - PROOF_MAX_AGE_SECONDS + 5 } }), expected)).ok).toBe(true);
    expect((await checkDpopProof(await proof({ claims: { iat: now + PROOF_CLOCK_SKEW_SECONDS - 5 } }), expected)).ok).toBe(true);
  });

  it("refuses a proof whose ath is another token's, or missing", async () => {
    expect(await reasonOf(await proof({ claims: { ath: await accessTokenHash("another") } }))).toMatch(/"ath"/);
    expect(await reasonOf(await proof({ claims: { ath: undefined } }))).toMatch(/"ath"/);
  });

  it("refuses a proof without a jti, or with one too long to remember", async () => {
    expect(await reasonOf(await proof({ claims: { jti: undefined } }))).toMatch(/"jti"/);
    expect(await reasonOf(await proof({ claims: { jti: "j".repeat(200) } }))).toMatch(/"jti"/);
  });

  it("refuses a header that is not typ dpop+jwt", async () => {
    for (const typ of ["JWT", "at+jwt", undefined]) expect(await reasonOf(await proof({ header: { typ } })), String(typ)).toMatch(/typ "dpop\+jwt"/);
  });

  it("refuses a symmetric algorithm, and one not in the list", async () => {
    const secret = new Uint8Array(32).fill(7);
    expect(await reasonOf(await proof({ header: { alg: "HS256", jwk: { kty: "oct", k: "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc" } }, key: secret }))).toMatch(/algorithm/);
    const rsa = await generateKeyPair("PS256", { extractable: true });
    const rsaJwk = await exportJWK(rsa.publicKey);
    expect(await reasonOf(await proof({ header: { alg: "PS256", jwk: rsaJwk }, key: rsa.privateKey }))).toMatch(/algorithm/);
  });

  it("refuses a header that carries a private key, or none", async () => {
    const privateJwk = await exportJWK(pair.privateKey);
    expect(await reasonOf(await proof({ header: { jwk: privateJwk } }))).toMatch(/public key|header/);
    expect(await reasonOf(await proof({ header: { jwk: undefined } }))).toMatch(/header/);
  });

  it("refuses a proof signed by another key than the one in its header", async () => {
    const other = await generateKeyPair("ES256");
    expect(await reasonOf(await proof({ key: other.privateKey }))).toMatch(/signature/);
  });

  it("refuses what is not a JWT, and an oversized one, without throwing", async () => {
    expect(await reasonOf("a.b.c")).toMatch(/not a well-formed|header/);
    expect(await reasonOf("x".repeat(9_000))).toMatch(/too long/);
  });
});

describe("asymmetricOnly", () => {
  it("accepts asymmetric JWS algorithms and refuses none, HMAC and an empty list", () => {
    expect(asymmetricOnly(["ES256", "EdDSA", "RS256", "PS384"])).toBe(true);
    for (const list of [["none"], ["HS256"], ["ES256", "HS512"], []]) expect(asymmetricOnly(list), String(list)).toBe(false);
  });
});
