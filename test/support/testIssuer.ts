/**
 * Test helpers for the authorization suites: a JWT issuer whose ES256 key pair the test makes
 * (`jose`), handing the server its public key set and signing access tokens; and a bounded loop
 * that sends until a rate limit refuses.
 *
 * @example
 * const issuer = await testIssuer("https://issuer.example");
 * startServer({ vars: { JWT_ISSUER: issuer.issuer, JWT_KEYS: issuer.jwks } });
 * const token = await issuer.sign({ sub: "alice", aud: `${url}/mcp` });
 * const bound = await issuer.sign({ sub: "alice", aud: `${url}/mcp`, cnf: { jkt: session.thumbprint } }); // DPoP-bound (RFC 9449 §6.1)
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export const TEST_KID = "test";

export interface TestIssuer {
  issuer: string;
  /** The public key set, as JSON text (a server variable). */
  jwks: string;
  privateKey: CryptoKey;
  /** An access token: `scope` "mcp", 5 minutes, unless the claims or options say otherwise; `cnf: { jkt }` binds it to a DPoP key. */
  sign(claims: { sub: string; aud: string; scope?: string; [claim: string]: unknown }, options?: { expiresIn?: string | number; key?: CryptoKey }): Promise<string>;
}

export async function testIssuer(issuer: string): Promise<TestIssuer> {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: TEST_KID, alg: "ES256" }] });
  return {
    issuer,
    jwks,
    privateKey: pair.privateKey,
    sign: ({ sub, aud, scope = "mcp", ...claims }, { expiresIn = "5m", key = pair.privateKey } = {}) =>
      new SignJWT({ scope, ...claims })
        .setProtectedHeader({ alg: "ES256", kid: TEST_KID, typ: "at+jwt" })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime(expiresIn)
        .sign(key),
  };
}

/**
 * Sends until one answer is 429, at most `max` times (a window may turn over between requests on
 * a slow machine): every status in order, and the refusal, unread.
 */
export async function sendUntilRefused(send: () => Promise<Response>, max: number): Promise<{ statuses: number[]; refused: Response | undefined }> {
  const statuses: number[] = [];
  for (let i = 0; i < max; i++) {
    const response = await send();
    statuses.push(response.status);
    if (response.status === 429) return { statuses, refused: response };
    await response.arrayBuffer();
  }
  return { statuses, refused: undefined };
}
