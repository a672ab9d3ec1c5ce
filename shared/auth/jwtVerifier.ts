/**
 * A `TokenVerifier` for JWT access tokens (RFC 9068) signed by an issuer whose keys are published
 * as a JWK Set, checked with `jose` — a well-kept library made for exactly this, on web crypto
 * only, so it runs on Workers and Deno alike. Checked: the signature, with the algorithms pinned
 * (never `none`, never what the token's header asks for beyond them); the issuer; the audience,
 * which must name this resource; expiry and not-before, with a bounded clock skew; and a subject.
 *
 * Keys are fetched from `jwksUrl` and cached by `jose` (refetched on an unknown `kid`, at most
 * once per cooldown), or given directly as a JWK Set.
 *
 * Scopes come from the `scope` claim (a space-separated string, RFC 9068 §2.2.3) or, as some
 * issuers do, an `scp` array.
 */
import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, jwtVerify } from "jose";
import type { Principal, TokenVerifier } from "./Principal.ts";

export interface JwtVerifierOptions {
  /** The issuer's identifier, exactly as in its tokens' `iss`. */
  issuer: string;
  /** Where the issuer publishes its keys; or `keys` to give them. */
  jwksUrl?: string;
  keys?: JSONWebKeySet;
  /** Signing algorithms accepted. Default: RS256, ES256, EdDSA. */
  algorithms?: readonly string[];
  /** Clock skew tolerated on `exp` and `nbf`, in seconds. Default 60; at most 300. */
  clockToleranceSeconds?: number;
}

const DEFAULT_ALGORITHMS = ["RS256", "ES256", "EdDSA"];
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;
const MAX_CLOCK_TOLERANCE_SECONDS = 300;

/**
 * @throws TypeError at startup when neither keys nor a key set URL is given, or the tolerance is out of bounds.
 *
 * @example jwtVerifier({ issuer: "https://auth.example.com", jwksUrl: "https://auth.example.com/.well-known/jwks.json" })
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const tolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  if (!(tolerance >= 0 && tolerance <= MAX_CLOCK_TOLERANCE_SECONDS)) {
    throw new TypeError(`clockToleranceSeconds must be between 0 and ${MAX_CLOCK_TOLERANCE_SECONDS}, got ${tolerance}`);
  }
  const keys = options.keys ? createLocalJWKSet(options.keys) : options.jwksUrl ? createRemoteJWKSet(new URL(options.jwksUrl)) : undefined;
  if (!keys) throw new TypeError(`jwtVerifier for ${options.issuer} needs its keys: jwksUrl, or keys (a JWK Set)`);
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  return async (token, resource) => {
    try {
      const { payload } = await jwtVerify(token, keys, { issuer: options.issuer, audience: resource, algorithms, clockTolerance: tolerance, requiredClaims: ["sub", "exp"] });
      const principal: Principal = { issuer: payload.iss!, subject: payload.sub!, scopes: scopesOf(payload), claims: payload };
      return { ok: true, principal };
    } catch (error) {
      return { ok: false, reason: reasonOf(error) };
    }
  };
}

function scopesOf(payload: Record<string, unknown>): string[] {
  if (typeof payload.scope === "string") return payload.scope.split(" ").filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === "string");
  return [];
}

/** A sentence for the developer that says which check failed, and never echoes the token. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "The access token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) return `The access token's "${error.claim}" claim is not acceptable here`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The access token's signature does not verify";
  if (error instanceof errors.JOSEAlgNotAllowed) return "The access token is signed with an algorithm this server does not accept";
  if (error instanceof errors.JWKSNoMatchingKey) return "The access token is signed with a key its issuer does not publish";
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return "The access token is not a well-formed JWT";
  return "The access token could not be verified";
}
