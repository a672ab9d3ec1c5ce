/**
 * Who asks at the token endpoint for the client credentials grant: one of the configured service
 * clients (`serviceClients.ts`), authenticated by exactly one method (RFC 6749 §2.3):
 *
 * - `client_secret_basic`: `Authorization: Basic`, the id and secret form-encoded (§2.3.1);
 * - `client_secret_post`: `client_id` and `client_secret` in the body;
 * - `private_key_jwt`: `client_assertion_type` and `client_assertion`, a JWT the client signed
 *   (RFC 7523 §2.2, §3), checked with `jose`: `iss` = `sub` = the client id, `aud` the issuer or
 *   the token endpoint (only the issuer for a `client-authentication+jwt` one), signed by a key of
 *   its JWK Set with RS256 or ES256, `exp` at most MAX_ASSERTION_LIFETIME_S away, and its `jti`
 *   used once (`assertionReplays.ts`).
 *
 * A secret is compared by its SHA-256, in constant time. A refusal is a value: 401
 * `invalid_client`, with `basic` set where Basic was tried (the answer then carries
 * `WWW-Authenticate: Basic`, RFC 6749 §5.2), or 400 `invalid_request` for two methods at once.
 */
import { createLocalJWKSet, decodeJwt, errors, jwtVerify } from "jose";
import { ASSERTION_CLOCK_TOLERANCE_S, firstUse, MAX_ASSERTION_LIFETIME_S } from "./assertionReplays.ts";
import type { ServiceClient } from "./serviceClients.ts";

/** RFC 7523 §2.2. */
const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** What the provider accepts on its own clients' assertions too, so the metadata names one list. */
export const ASSERTION_ALGORITHMS = ["RS256", "ES256"];
/** The explicitly typed client assertion (draft-ietf-oauth-rfc7523bis), as compared: lower case, without `application/`. */
const TYPED_ASSERTION = "client-authentication+jwt";
const MAX_ASSERTION_CHARS = 16_384;
const MAX_JTI_CHARS = 256;

export type ClientCheck =
  | { ok: true; client: ServiceClient }
  | { ok: false; status: 400 | 401; error: "invalid_request" | "invalid_client"; description: string; basic: boolean; unknownId?: string };

/** Where the request arrived, and where assertions are remembered. */
export interface TokenEndpoint {
  issuer: string;
  url: string;
  kv: KVNamespace;
}

/** Each client's key set, as `jose` caches the imported keys; the clients are the same objects while SERVICE_CLIENTS is unchanged. */
const keySets = new WeakMap<ServiceClient, ReturnType<typeof createLocalJWKSet>>();

export async function authenticateClient(headers: Headers, params: URLSearchParams, clients: ReadonlyMap<string, ServiceClient>, endpoint: TokenEndpoint): Promise<ClientCheck> {
  const basic = basicCredentials(headers.get("authorization"));
  const basicTried = basic !== undefined;
  const refuse = (description: string, unknownId?: string): ClientCheck => ({ ok: false, status: 401, error: "invalid_client", description, basic: basicTried, unknownId });
  const assertionTried = params.has("client_assertion") || params.has("client_assertion_type");
  if ([basicTried, params.has("client_secret"), assertionTried].filter(Boolean).length > 1) {
    return { ok: false, status: 400, error: "invalid_request", description: "Authenticate the client one way, not several (RFC 6749 §2.3)", basic: basicTried };
  }
  if (basic === "malformed") return refuse("The Basic credentials are not base64 of the form-encoded client_id, a colon and the form-encoded client_secret");
  const bodyId = params.get("client_id") ?? undefined;
  const id = basic?.id ?? bodyId ?? (assertionTried ? assertedClient(params.get("client_assertion")) : undefined);
  if (!id) return refuse("The client credentials grant needs client authentication");
  if (bodyId !== undefined && bodyId !== id) return refuse("client_id names another client than the one authenticating");
  const client = clients.get(id);
  if (!client) return refuse("Unknown client", id);
  if (assertionTried) {
    const problem = await assertionProblem(client, params, endpoint);
    return problem ? refuse(problem) : { ok: true, client };
  }
  const secrets = basic?.secrets ?? [params.get("client_secret") ?? ""];
  if (!client.secretDigest) return refuse("This client authenticates with private_key_jwt");
  let matches = false;
  for (const secret of secrets) matches = sameBytes(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret))), client.secretDigest) || matches;
  return matches ? { ok: true, client } : refuse("Client authentication failed");
}

/** Why the request's client assertion does not authenticate `client`, or undefined when it does (and is now used). */
async function assertionProblem(client: ServiceClient, params: URLSearchParams, endpoint: TokenEndpoint): Promise<string | undefined> {
  if (params.get("client_assertion_type") !== CLIENT_ASSERTION_TYPE) return `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`;
  const assertion = params.get("client_assertion");
  if (!assertion || assertion.length > MAX_ASSERTION_CHARS) return `client_assertion must be a JWT of at most ${MAX_ASSERTION_CHARS} characters`;
  if (!client.keys) return "This client authenticates with its secret";
  let keys = keySets.get(client);
  if (!keys) keySets.set(client, (keys = createLocalJWKSet(client.keys)));
  let verified: Awaited<ReturnType<typeof jwtVerify>>;
  try {
    verified = await jwtVerify(assertion, keys, {
      issuer: client.id,
      subject: client.id,
      audience: [endpoint.issuer, endpoint.url],
      algorithms: ASSERTION_ALGORITHMS,
      clockTolerance: ASSERTION_CLOCK_TOLERANCE_S,
      requiredClaims: ["exp", "jti"],
    });
  } catch (error) {
    return reasonOf(error);
  }
  const { payload, protectedHeader } = verified;
  const typ = normalTyp(protectedHeader.typ);
  if (typ !== "" && typ !== "jwt" && typ !== TYPED_ASSERTION) return "The client assertion's header typ must be JWT or client-authentication+jwt";
  const audiences = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
  if (typ === TYPED_ASSERTION && (audiences.length !== 1 || audiences[0] !== endpoint.issuer)) return "A client-authentication+jwt assertion must name the issuer as its only audience";
  const exp = payload.exp!;
  if (exp - Math.floor(Date.now() / 1000) > MAX_ASSERTION_LIFETIME_S + ASSERTION_CLOCK_TOLERANCE_S) return `The client assertion must expire within ${MAX_ASSERTION_LIFETIME_S} s: sign one per request`;
  const jti = payload.jti;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_CHARS) return `The client assertion's jti must be a string of 1 to ${MAX_JTI_CHARS} characters`;
  if (!(await firstUse(endpoint.kv, client.id, jti, exp))) return "This client assertion was used before: sign a new one for each request";
  return undefined;
}

/**
 * The client an assertion names, unverified (`jose` reads it), only to find whose keys check it:
 * its `sub` (RFC 7523 §3; the client credentials extension sends no `client_id` beside it), or its `iss`.
 */
function assertedClient(assertion: string | null): string | undefined {
  if (!assertion || assertion.length > MAX_ASSERTION_CHARS) return undefined;
  try {
    const { sub, iss } = decodeJwt(assertion);
    const named = sub ?? iss;
    return typeof named === "string" && named !== "" ? named : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The id and secret of an `Authorization: Basic` header; undefined for no header or another
 * scheme. RFC 6749 §2.3.1 has each part form-encoded before they are joined; both official SDKs
 * send them as they are. The id has no character the two read differently; the secret is
 * checked both ways (`secrets`), so either client is served.
 */
function basicCredentials(header: string | null): { id: string; secrets: string[] } | "malformed" | undefined {
  const [scheme, value, extra] = (header ?? "").trim().split(/\s+/);
  if (scheme?.toLowerCase() !== "basic") return undefined;
  if (!value || extra !== undefined) return "malformed";
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
  } catch {
    return "malformed";
  }
  const colon = text.indexOf(":");
  if (colon < 1) return "malformed";
  const secret = text.slice(colon + 1);
  return { id: formDecoded(text.slice(0, colon)), secrets: [...new Set([formDecoded(secret), secret])] };
}

/** A form-encoded part decoded, or as it is where it is not (a `%` not followed by two hex digits). */
function formDecoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, " "));
  } catch {
    return part;
  }
}

/** A header `typ` as compared: case-insensitive, `application/` optional (RFC 7515 §4.1.9). */
function normalTyp(typ: unknown): string {
  if (typeof typ !== "string") return "";
  const lower = typ.toLowerCase();
  return lower.startsWith("application/") ? lower.slice("application/".length) : lower;
}

/** Compares without stopping at the first difference, so the time taken says nothing of the secret. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** Which check an assertion failed, for the client's developer. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "The client assertion has expired";
  if (error instanceof errors.JWTClaimValidationFailed) return `The client assertion's "${error.claim}" claim is not acceptable here`;
  if (error instanceof errors.JOSEAlgNotAllowed) return `The client assertion must be signed with ${ASSERTION_ALGORITHMS.join(" or ")}`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return "The client assertion's signature does not verify with the client's keys";
  }
  return "The client assertion is not a well-formed JWT";
}
