/**
 * One DPoP proof (RFC 9449 §4.3) checked against the request it came with, on web crypto through
 * `jose`: a JWS whose header has `typ: dpop+jwt`, an asymmetric `alg` this server accepts and the
 * public key (`jwk`, no private members) that signs it; whose claims name this request's method
 * (`htm`) and URL (`htu`, without query or fragment), were issued within the proof window (`iat`,
 * either side of now), carry a `jti`, and, beside an access token, its hash (`ath`). The answer is
 * the key's thumbprint (RFC 7638) and the `jti`, for the caller to hold against the token's
 * `cnf.jkt` and the replay store. The same check serves an authorization server's token endpoint,
 * where the proof comes with no token.
 *
 * Not here: whether the token is bound to that key, or the `jti` was seen before (the caller,
 * `DpopReplayStore`); server nonces (§8, §9: not asked for).
 */
import { base64url, calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify } from "jose";

/** How old a proof may be (its `iat`), and how far ahead of this server's clock: clients' clocks drift. */
export const PROOF_MAX_AGE_SECONDS = 60;
export const PROOF_CLOCK_SKEW_SECONDS = 30;
/** The longest a proof is acceptable after it reaches this server: from an `iat` a skew ahead, to its age past a skew behind. */
export const PROOF_LIFETIME_MS = (PROOF_MAX_AGE_SECONDS + 2 * PROOF_CLOCK_SKEW_SECONDS) * 1000;
/** A proof longer than this is no proof: a header with a large RSA key stays well below it. */
export const MAX_PROOF_CHARS = 8_192;
/** A `jti` longer than this is refused: the replay store keeps each one for the proof's lifetime. */
export const MAX_JTI_CHARS = 128;
/** The asymmetric algorithms accepted by default (RFC 9449 §11.6: never symmetric, never `none`). */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = ["ES256", "ES384", "EdDSA", "PS256", "RS256"];
const ASYMMETRIC = /^(ES(256|384|512)|PS(256|384|512)|RS(256|384|512)|EdDSA|Ed25519)$/;
/** A proof is one compact JWS: three base64url parts. Anything else, a comma included (two `DPoP` headers joined), is not one proof. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface ProofExpectations {
  /** The request's method. */
  method: string;
  /** The URL the proof must name: the request's, on the resource's origin (see `OAuthResourceServer`). */
  url: string;
  /**
   * The access token presented with the proof; its SHA-256 must be the proof's `ath`. Absent at an
   * authorization server's token endpoint, where the proof comes with no token (RFC 9449 §5).
   */
  accessToken?: string;
  /** Algorithms accepted, all asymmetric. Default: ES256, ES384, EdDSA, PS256, RS256. */
  algorithms?: readonly string[];
  /** Now, in ms since the epoch. Default: the clock. */
  now?: number;
}

export type ProofCheck = { ok: true; thumbprint: string; jti: string } | { ok: false; reason: string };

/** Whether every one of `algorithms` is an asymmetric JWS algorithm; refuses `none` and HMAC. */
export function asymmetricOnly(algorithms: readonly string[]): boolean {
  return algorithms.length > 0 && algorithms.every((alg) => ASYMMETRIC.test(alg));
}

/**
 * @example
 * const checked = await checkDpopProof(request.headers.get("dpop")!, { method: "POST", url: "https://mcp.example.com/mcp", accessToken });
 * if (checked.ok && checked.thumbprint === principal.keyThumbprint) …
 */
export async function checkDpopProof(proof: string, expected: ProofExpectations): Promise<ProofCheck> {
  if (proof.length > MAX_PROOF_CHARS) return { ok: false, reason: "The DPoP proof is too long" };
  if (!COMPACT_JWS.test(proof)) return { ok: false, reason: "The request must carry exactly one DPoP header, a compact JWS" };
  let payload: Record<string, unknown>;
  let jwk: Record<string, unknown>;
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, {
      typ: "dpop+jwt",
      algorithms: [...(expected.algorithms ?? DEFAULT_DPOP_ALGORITHMS)],
      maxTokenAge: PROOF_MAX_AGE_SECONDS,
      clockTolerance: PROOF_CLOCK_SKEW_SECONDS,
      currentDate: expected.now === undefined ? undefined : new Date(expected.now),
      requiredClaims: ["jti", "htm", "htu", "iat"],
    });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk as Record<string, unknown>;
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
  const { jti, htm, htu, ath } = payload;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_CHARS) return { ok: false, reason: `The DPoP proof's "jti" must be a string of 1 to ${MAX_JTI_CHARS} characters` };
  if (htm !== expected.method) return { ok: false, reason: `The DPoP proof's "htm" must be this request's method, ${expected.method}` };
  if (typeof htu !== "string" || !sameTarget(htu, expected.url)) return { ok: false, reason: `The DPoP proof's "htu" must be this request's URL, ${expected.url}` };
  if (expected.accessToken !== undefined && ath !== (await accessTokenHash(expected.accessToken))) return { ok: false, reason: 'The DPoP proof\'s "ath" is not the hash of the access token it came with' };
  return { ok: true, thumbprint: await calculateJwkThumbprint(jwk, "sha256"), jti };
}

/** RFC 9449 §4.1: base64url of the SHA-256 of the token's ASCII. */
export async function accessTokenHash(token: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token))));
}

/** RFC 9449 §4.3 step 9: the URLs compared after normalization (what `URL` does), query and fragment left out. */
function sameTarget(htu: string, expected: string): boolean {
  let a: URL;
  try {
    a = new URL(htu);
  } catch {
    return false;
  }
  const b = new URL(expected);
  return a.origin === b.origin && a.pathname === b.pathname;
}

/** A sentence for the developer that says which check failed. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return `The DPoP proof is older than ${PROOF_MAX_AGE_SECONDS} s`;
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "typ") return 'The DPoP proof\'s header must say typ "dpop+jwt"';
    if (error.claim === "iat" && error.reason === "check_failed") return "The DPoP proof is issued in the future";
    return `The DPoP proof's "${error.claim}" claim is missing or malformed`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "The DPoP proof is signed with an algorithm this server does not accept";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The DPoP proof's signature does not verify with the key in its header";
  if (error instanceof errors.JWSInvalid) return `The DPoP proof's header is not acceptable: ${error.message}`;
  if (error instanceof errors.JOSENotSupported) return "The DPoP proof's key or algorithm is not supported";
  return "The DPoP proof is not a well-formed JWT";
}
