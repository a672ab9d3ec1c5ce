/**
 * A `TokenVerifier` for JWT access tokens (RFC 9068) signed by an issuer whose keys are published
 * as a JWK Set, checked with `jose` — a well-kept library made for exactly this, on web crypto
 * only, so it runs on Workers and Deno alike. Checked: the signature, with the algorithms pinned
 * (never `none`, never what the token's header asks for beyond them); the issuer; the audience,
 * which must name this resource; expiry and not-before, with a bounded clock skew; the header's
 * `typ`, which must be `at+jwt` (RFC 9068 §2.1, §4: so an ID token or another JWT the same issuer
 * signs is not taken for an access token); and a subject, a non-empty string (RFC 9068 §2.2, RFC
 * 7519 §4.1.2: a number would name a different user than the string of its digits).
 *
 * Keys are fetched from `jwksUrl` and cached by `jose` (refetched on an unknown `kid`, at most
 * once per cooldown), or given directly as a JWK Set.
 *
 * Scopes come from the `scope` claim (a space-separated string, RFC 9068 §2.2.3) or, as some
 * issuers do, an `scp` array.
 *
 * A token bound to a key (`cnf.jkt`, RFC 9449 §6.1) hands the thumbprint on in the principal,
 * for the resource server to hold the request's DPoP proof against. A `cnf` naming no `jkt` binds
 * the token some other way (a client certificate, RFC 8705) this server cannot check: refused.
 */
import { createLocalJWKSet, createRemoteJWKSet, errors, type JSONWebKeySet, jwtVerify } from "jose";
import type { Principal } from "../../shared/auth/Principal.ts";
import type { TokenVerifier } from "./TokenVerifier.ts";

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
  /**
   * Also accept the header `typ: JWT`, for an issuer whose access tokens are not RFC 9068 ones:
   * Microsoft Entra ID's always say `JWT`; Auth0's do in its default token profile (choose its
   * "RFC 9068" profile instead where you can). The audience, issuer and signature are checked
   * as ever, but an ID token of the same issuer for the same audience would then pass too.
   * Default false: `at+jwt` only.
   */
  acceptJwtTyp?: boolean;
}

const DEFAULT_ALGORITHMS = ["RS256", "ES256", "EdDSA"];
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;
const MAX_CLOCK_TOLERANCE_SECONDS = 300;
/** The header `typ` of an RFC 9068 access token, as compared: lower case, without `application/` (RFC 7515 §4.1.9). */
const ACCESS_TOKEN_TYP = "at+jwt";
const PLAIN_JWT_TYP = "jwt";

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
  const types = options.acceptJwtTyp ? [ACCESS_TOKEN_TYP, PLAIN_JWT_TYP] : [ACCESS_TOKEN_TYP];
  return async (token, resource) => {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, keys, { issuer: options.issuer, audience: resource, algorithms, clockTolerance: tolerance, requiredClaims: ["sub", "exp"] });
      if (!types.includes(normalTyp(protectedHeader.typ))) {
        return { ok: false, reason: `The access token's header must say typ ${types.join(" or ")} (RFC 9068): this is another kind of JWT` };
      }
      if (typeof payload.sub !== "string" || payload.sub === "") return { ok: false, reason: 'The access token\'s "sub" claim is not acceptable here' };
      const binding = bindingOf(payload.cnf);
      if (binding === null) return { ok: false, reason: 'The access token\'s "cnf" claim binds it in a way this server cannot check: only a DPoP key ("jkt")' };
      const principal: Principal = { issuer: payload.iss!, subject: payload.sub, scopes: scopesOf(payload), claims: payload, ...(binding && { keyThumbprint: binding }) };
      return { ok: true, principal };
    } catch (error) {
      return { ok: false, reason: reasonOf(error) };
    }
  };
}

/** A header `typ` as compared: media types are case-insensitive and `application/` may be left out (RFC 7515 §4.1.9). */
function normalTyp(typ: unknown): string {
  if (typeof typ !== "string") return "";
  const lower = typ.toLowerCase();
  return lower.startsWith("application/") ? lower.slice("application/".length) : lower;
}

/** The key thumbprint a `cnf` claim binds the token to; undefined for no `cnf`, null for one this server cannot check. */
function bindingOf(cnf: unknown): string | undefined | null {
  if (cnf === undefined) return undefined;
  const jkt = typeof cnf === "object" && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === "string" && jkt !== "" ? jkt : null;
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
