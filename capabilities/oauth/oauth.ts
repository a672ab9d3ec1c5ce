/**
 * `oauth(options)`: what a runtime entry's `authorization` option takes — the server as an OAuth
 * 2.1 resource server (MCP authorization spec): every endpoint but the protected-resource metadata
 * needs a valid access token for it, sessions are bound to the user that started them, and
 * definitions' `scopes` apply. The factory brings the token checks (`OAuthResourceServer`, the
 * RFC 9728 metadata, the bearer challenges), so a Worker without authorization ships none of them.
 *
 * Options are given as they are, or as a function of the environment (Workers' bindings and
 * variables arrive with the first request); they are checked when the first request builds the
 * router's services, and a problem with them is answered 500 with its sentence on every route.
 */
import type { Authorization } from "../../shared/auth/Authorization.ts";
import { DEFAULT_RATE_LIMITS } from "./OAuthGatekeeper.ts";
import { type AuthorizationOptions, OAuthResourceServer } from "./OAuthResourceServer.ts";
import { gatekeeper } from "./rateLimits.ts";

/**
 * @example
 * createWorker(server, { authorization: oauth((env) => ({ verify: jwtVerifier({ issuer: env.ISSUER, keys: env.JWKS }), requiredScopes: ["mcp"] })) })
 */
export function oauth<E = Readonly<Record<string, unknown>>>(options: AuthorizationOptions | ((env: E) => AuthorizationOptions)): Authorization<E> {
  return {
    resourceServer: (env, runtime) => new OAuthResourceServer(typeof options === "function" ? options(env) : options, runtime),
    // With a server, the gate is always made: it checks the tokens.
    gate: (server, env) => gatekeeper(DEFAULT_RATE_LIMITS, server, env)!,
  };
}
