/**
 * How `oauth()` checks one access token: `jwtVerifier` (JWTs against an issuer's keys),
 * `providerVerifier` (tokens of an authorization provider in the same Worker), or the user's own
 * function of this shape.
 *
 * Not here: where the token is read from (`readBearerToken`), what its refusal looks like on the
 * wire (`OAuthResourceServer`).
 */
import type { Principal } from "../../shared/auth/Principal.ts";

/**
 * Checks one access token for this resource: the principal, or why the token is refused (a
 * sentence for the developer; the client gets 401 `invalid_token` with it). It must check the
 * audience: a token issued for another resource is refused (RFC 8707, MCP "Token Audience
 * Binding and Validation"). `env` is the request's environment, for a verifier that needs its
 * bindings (an authorization provider in the same Worker keeps its grants in a KV namespace).
 */
export type TokenVerifier = (token: string, resource: string, env: Readonly<Record<string, unknown>>) => Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
