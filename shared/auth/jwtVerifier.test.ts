import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { jwtVerifier } from "./jwtVerifier.ts";

const ISSUER = "https://auth.example.com";
const RESOURCE = "https://mcp.example.com/mcp";
let privateKey: CryptoKey;
let otherKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
  otherKey = (await generateKeyPair("ES256")).privateKey;
});

const verifier = () => jwtVerifier({ issuer: ISSUER, keys: { keys: [publicJwk] } });

function token(claims: Record<string, unknown> = {}, options: { key?: CryptoKey; expiresIn?: string | number; audience?: string; issuer?: string } = {}) {
  return new SignJWT({ scope: "tools:read tools:call", ...claims })
    .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
    .setSubject("user-42")
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? RESOURCE)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "5m")
    .sign(options.key ?? privateKey);
}

describe("jwtVerifier", () => {
  it("accepts a token for this resource: issuer and subject, scopes, claims", async () => {
    const checked = await verifier()(await token({ name: "Ada" }), RESOURCE, {});
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(checked.principal).toMatchObject({ issuer: ISSUER, subject: "user-42", scopes: ["tools:read", "tools:call"] });
      expect(checked.principal.claims.name).toBe("Ada");
    }
  });

  it("reads scopes from an scp array too", async () => {
    const checked = await verifier()(await token({ scope: undefined, scp: ["a", "b"] }), RESOURCE, {});
    expect(checked.ok && checked.principal.scopes).toEqual(["a", "b"]);
  });

  it("refuses a token issued for another resource (audience), by another issuer, or expired", async () => {
    expect(await verifier()(await token({}, { audience: "https://other.example.com/mcp" }), RESOURCE, {})).toEqual({ ok: false, reason: 'The access token\'s "aud" claim is not acceptable here' });
    expect(await verifier()(await token({}, { issuer: "https://evil.example.com" }), RESOURCE, {})).toEqual({ ok: false, reason: 'The access token\'s "iss" claim is not acceptable here' });
    const expired = await token({}, { expiresIn: Math.floor(Date.now() / 1000) - 3_600 });
    expect(await verifier()(expired, RESOURCE, {})).toEqual({ ok: false, reason: "The access token has expired" });
  });

  it("tolerates a bounded clock skew, and no more", async () => {
    const justExpired = await token({}, { expiresIn: Math.floor(Date.now() / 1000) - 30 });
    expect((await verifier()(justExpired, RESOURCE, {})).ok).toBe(true);
    expect((await jwtVerifier({ issuer: ISSUER, keys: { keys: [publicJwk] }, clockToleranceSeconds: 0 })(justExpired, RESOURCE, {})).ok).toBe(false);
    expect(() => jwtVerifier({ issuer: ISSUER, keys: { keys: [publicJwk] }, clockToleranceSeconds: 3_600 })).toThrow(/between 0 and 300/);
  });

  it("refuses a forged signature, an unsigned token and garbage, never echoing the token", async () => {
    const forged = await token({}, { key: otherKey });
    const forgedCheck = await verifier()(forged, RESOURCE, {});
    expect(forgedCheck).toEqual({ ok: false, reason: "The access token's signature does not verify" });
    const [header, payload] = (await token()).split(".");
    const unsigned = `${btoa(JSON.stringify({ alg: "none", typ: "JWT" })).replace(/=+$/, "")}.${payload}.`;
    expect((await verifier()(unsigned, RESOURCE, {})).ok).toBe(false);
    expect(await verifier()("not-a-jwt", RESOURCE, {})).toEqual({ ok: false, reason: "The access token is not a well-formed JWT" });
    expect(JSON.stringify(forgedCheck)).not.toContain(header!);
  });

  it("refuses a token without a subject", async () => {
    const anonymous = await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer(ISSUER).setAudience(RESOURCE).setExpirationTime("5m").sign(privateKey);
    expect(await verifier()(anonymous, RESOURCE, {})).toEqual({ ok: false, reason: 'The access token\'s "sub" claim is not acceptable here' });
  });

  it("needs its keys", () => {
    expect(() => jwtVerifier({ issuer: ISSUER })).toThrow(/needs its keys/);
  });
});
