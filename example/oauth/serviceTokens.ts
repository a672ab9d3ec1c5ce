/**
 * The access tokens of service clients: RFC 9068 JWTs (`typ: at+jwt`; `iss` the authorization
 * server's origin, `sub` `service:<client_id>`, `aud` the one resource asked for, `client_id`,
 * `scope`, `iat`, `exp`, `jti`), signed HS256 with a key derived by HKDF from
 * `REQUEST_STATE_SECRET`, and checked with `jose`.
 *
 * Why a JWT and not a token the provider stores: the provider has no client credentials grant to
 * store one with, and a self-contained token needs no storage at all — nothing to own, expire or
 * bound. Why symmetric: the only verifier is this Worker, which holds the secret anyway; the token
 * is for this server alone, never published keys. What a stored token would give, revocation, is
 * kept: the verifier reads `SERVICE_CLIENTS` on every request, so removing a client refuses its
 * tokens at once and narrowing its scopes narrows them; and they live ACCESS_TOKEN_TTL_S.
 *
 * The subject cannot be a person's: the provider's user ids never hold `:` (it keeps the colon for
 * itself), and every service subject does.
 *
 * Without `REQUEST_STATE_SECRET` each isolate draws its own key, as for requestState: fine for
 * `wrangler dev`, but a deployment sets the secret, or a token minted in one isolate fails in another.
 */
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from "jose";
import type { Principal, TokenVerifier } from "durable-mcp";
import { type ServiceClientsEnv, serviceClients } from "./serviceClients.ts";

/** What the tokens need of the environment. */
export interface ServiceTokenEnv extends ServiceClientsEnv {
  /** At least 32 characters (`wrangler secret put REQUEST_STATE_SECRET`): the key is derived from it. */
  REQUEST_STATE_SECRET?: string;
}

/** Short-lived, and no refresh token (RFC 6749 §4.4.3): a service asks again. */
export const ACCESS_TOKEN_TTL_S = 600;
const CLOCK_TOLERANCE_S = 60;
const ALGORITHM = "HS256";
const ACCESS_TOKEN_TYP = "at+jwt";
/** HKDF's `info`: a key of its own, whatever else the secret keys. */
const KEY_PURPOSE = new TextEncoder().encode("durable-mcp example: service client access tokens");
const SUBJECT_PREFIX = "service:";

/** The principal's subject for a service client. */
export function serviceSubject(clientId: string): string {
  return `${SUBJECT_PREFIX}${clientId}`;
}

/** An access token for `clientId` at `issuer`, for `audience` with `scopes`; bound to the key `jkt` names (RFC 9449 §6.1), where given. */
export async function issueServiceToken(env: ServiceTokenEnv, grant: { issuer: string; clientId: string; audience: string; scopes: readonly string[]; jkt?: string }): Promise<string> {
  const binding = grant.jkt === undefined ? {} : { cnf: { jkt: grant.jkt } };
  return new SignJWT({ client_id: grant.clientId, scope: grant.scopes.join(" "), ...binding })
    .setProtectedHeader({ alg: ALGORITHM, typ: ACCESS_TOKEN_TYP })
    .setIssuer(grant.issuer)
    .setSubject(serviceSubject(grant.clientId))
    .setAudience(grant.audience)
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_TTL_S}s`)
    .setJti(crypto.randomUUID())
    .sign(await keyOf(env));
}

/**
 * `verify` for a resource whose tokens are the provider's and service clients': a JWT is checked
 * here, anything else by `other` (the provider's tokens are opaque `user:grant:secret`).
 *
 * @example verify: withServiceTokens(providerVerifier((resource) => providerFor(new URL(resource).origin, env)))
 */
export function withServiceTokens(other: TokenVerifier): TokenVerifier {
  return (token, resource, env) => (isJwt(token) ? verifyServiceToken(token, resource, env as ServiceTokenEnv) : other(token, resource, env));
}

async function verifyServiceToken(token: string, resource: string, env: ServiceTokenEnv): ReturnType<TokenVerifier> {
  let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
  try {
    ({ payload } = await jwtVerify(token, await keyOf(env), {
      issuer: new URL(resource).origin,
      audience: resource,
      algorithms: [ALGORITHM],
      typ: ACCESS_TOKEN_TYP,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ["sub", "exp", "client_id"],
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, reason: "The access token has expired" };
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === "aud") return { ok: false, reason: "The access token was not issued for this resource" };
    return { ok: false, reason: "The access token is not one this server issued" };
  }
  const clientId = payload.client_id;
  const configured = serviceClients(env);
  const client = typeof clientId === "string" && configured?.ok ? configured.clients.get(clientId) : undefined;
  if (!client || payload.sub !== serviceSubject(client.id)) return { ok: false, reason: "The access token's client is no longer a service client here" };
  const granted = typeof payload.scope === "string" ? payload.scope.split(" ") : [];
  const jkt = (payload.cnf as { jkt?: unknown } | undefined)?.jkt;
  const principal: Principal = { issuer: payload.iss!, subject: payload.sub, scopes: granted.filter((scope) => client.scopes.includes(scope)), claims: payload, ...(typeof jkt === "string" ? { keyThumbprint: jkt } : {}) };
  return { ok: true, principal };
}

/** Whether `token` is a JWS at all, as `jose` reads it: the provider's tokens are not. */
function isJwt(token: string): boolean {
  try {
    decodeProtectedHeader(token);
    return true;
  } catch {
    return false;
  }
}

let derived: { secret: string | undefined; key: Promise<CryptoKey> } | undefined;

/** The signing key: HKDF-SHA-256 of the secret, or one drawn at random for this isolate without one. */
function keyOf(env: ServiceTokenEnv): Promise<CryptoKey> {
  const secret = typeof env.REQUEST_STATE_SECRET === "string" && env.REQUEST_STATE_SECRET !== "" ? env.REQUEST_STATE_SECRET : undefined;
  if (!derived || derived.secret !== secret) derived = { secret, key: deriveKey(secret) };
  return derived.key;
}

async function deriveKey(secret: string | undefined): Promise<CryptoKey> {
  const hmac = { name: "HMAC", hash: "SHA-256", length: 256 };
  if (secret === undefined) return crypto.subtle.generateKey(hmac, false, ["sign", "verify"]) as Promise<CryptoKey>;
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: KEY_PURPOSE }, base, hmac, false, ["sign", "verify"]);
}
