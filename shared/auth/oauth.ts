/**
 * `oauth(options)`: what a runtime entry's `authorization` option takes — the server as an OAuth
 * 2.1 resource server (MCP authorization spec): every endpoint but the protected-resource metadata
 * needs a valid access token for it, sessions are bound to the user that started them, and
 * definitions' `scopes` apply. The factory brings the token checks (`ResourceServer`, the RFC 9728
 * metadata, the bearer challenges), so a Worker without authorization ships none of them.
 *
 * Options are given as they are, or as a function of the environment (Workers' bindings and
 * variables arrive with the first request); they are checked when the first request builds the
 * router's services, and a problem with them is answered 500 with its sentence on every route.
 */
import { DEFAULT_RATE_LIMITS, type Gatekeeper } from "./Gatekeeper.ts";
import { gatekeeper } from "./rateLimits.ts";
import type { AuthorizationOptions } from "./ResourceServer.ts";
import { ResourceServer } from "./ResourceServer.ts";

/** What the router needs of a runtime's environment to make the resource server. */
export interface AuthorizationRuntime {
  /** The port the runtime serves on, where it knows it (a loopback resource is derived with it). */
  port?: () => number | undefined;
}

/** Authorization for a router, made by `oauth()`. */
export interface Authorization<E = Readonly<Record<string, unknown>>> {
  /** The resource server for one environment. @throws TypeError for options it cannot use. */
  resourceServer(env: E, runtime: AuthorizationRuntime): ResourceServer;
  /** The token checks with the default rate limits (`DEFAULT_RATE_LIMITS`), where the router has no `rateLimits` of its own. */
  gate(server: ResourceServer, env: E): Gatekeeper;
}

/**
 * @example
 * createWorker(server, { authorization: oauth((env) => ({ verify: jwtVerifier({ issuer: env.ISSUER, keys: env.JWKS }), requiredScopes: ["mcp"] })) })
 */
export function oauth<E = Readonly<Record<string, unknown>>>(options: AuthorizationOptions | ((env: E) => AuthorizationOptions)): Authorization<E> {
  return {
    resourceServer: (env, runtime) => new ResourceServer(typeof options === "function" ? options(env) : options, runtime),
    // With a server, the gate is always made: it checks the tokens.
    gate: (server, env) => gatekeeper(DEFAULT_RATE_LIMITS, server, env)!,
  };
}
