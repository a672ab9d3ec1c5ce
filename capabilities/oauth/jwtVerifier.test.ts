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

function token(claims: Record<string, unknown> = {}, options: { key?: CryptoKey; expiresIn?: string | number; audience?: string; issuer?: string; typ?: string } = {}) {
  const header = { alg: "ES256", kid: "k1", ...("typ" in options ? (options.typ === undefined ? {} : { typ: options.typ }) : { typ: "at+jwt" }) };
  return new SignJWT({ scope: "tools:read tools:call", ...claims })
    .setProtectedHeader(header)
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

  it("hands on the key a token is bound to (cnf.jkt), and none for a bearer token", async () => {
    const bound = await verifier()(await token({ cnf: { jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" } }), RESOURCE, {});
    expect(bound.ok && bound.principal.keyThumbprint).toBe("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I");
    const plain = await verifier()(await token(), RESOURCE, {});
    expect(plain.ok && "keyThumbprint" in plain.principal).toBe(false);
  });

  it("refuses a token bound some way it cannot check: a cnf without jkt (a certificate), or a jkt that is no string", async () => {
    for (const cnf of [{ "x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2" }, { jkt: 42 }, { jkt: "" }, "jkt"]) {
      const checked = await verifier()(await token({ cnf }), RESOURCE, {});
      expect(checked.ok, JSON.stringify(cnf)).toBe(false);
      if (!checked.ok) expect(checked.reason).toMatch(/"cnf" claim/);
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
    const anonymous = await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" }).setIssuer(ISSUER).setAudience(RESOURCE).setExpirationTime("5m").sign(privateKey);
    expect(await verifier()(anonymous, RESOURCE, {})).toEqual({ ok: false, reason: 'The access token\'s "sub" claim is not acceptable here' });
  });

  it("refuses a token whose header typ is not at+jwt (RFC 9068 §2.1, §4): an ID token or another JWT signed by the same issuer", async () => {
    for (const typ of ["at+jwt", "application/at+jwt", "AT+JWT", "Application/At+Jwt"]) {
      expect((await verifier()(await token({}, { typ }), RESOURCE, {})).ok, typ).toBe(true);
    }
    const refusal = { ok: false, reason: "The access token's header must say typ at+jwt (RFC 9068): this is another kind of JWT" };
    for (const typ of ["JWT", "jwt", "application/jwt", "id_token+jwt", "", undefined]) {
      expect(await verifier()(await token({}, { typ }), RESOURCE, {}), String(typ)).toEqual(refusal);
    }
  });

  it("accepts typ JWT only when told to (acceptJwtTyp, for an issuer such as Microsoft Entra ID), and still refuses other types", async () => {
    const lenient = jwtVerifier({ issuer: ISSUER, keys: { keys: [publicJwk] }, acceptJwtTyp: true });
    for (const typ of ["at+jwt", "JWT", "application/jwt"]) expect((await lenient(await token({}, { typ }), RESOURCE, {})).ok, typ).toBe(true);
    for (const typ of ["id_token+jwt", "dpop+jwt", undefined]) expect((await lenient(await token({}, { typ }), RESOURCE, {})).ok, String(typ)).toBe(false);
  });

  it("refuses a subject that is not a non-empty string: a number, an object, an empty string", async () => {
    for (const sub of [42, { id: "a" }, ["a"], "", true]) {
      const signed = await new SignJWT({ sub } as Record<string, unknown>).setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" }).setIssuer(ISSUER).setAudience(RESOURCE).setExpirationTime("5m").sign(privateKey);
      expect(await verifier()(signed, RESOURCE, {}), JSON.stringify(sub)).toEqual({ ok: false, reason: 'The access token\'s "sub" claim is not acceptable here' });
    }
  });

  it("needs its keys", () => {
    expect(() => jwtVerifier({ issuer: ISSUER })).toThrow(/needs its keys/);
  });
});
