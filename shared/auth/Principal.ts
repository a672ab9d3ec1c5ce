/**
 * Who a request acts for, as the resource server established it from the request's own access
 * token (never cached with a session): the issuer and subject that name the user, the scopes the
 * token grants, and its claims (a JWT's payload, or an authorization provider's props).
 *
 * Not here: how a token is checked (a `TokenVerifier`), what a scope allows (the definitions).
 */
export interface Principal {
  /** The token's issuer (`iss`): whose user this is. */
  readonly issuer: string;
  /** The user at that issuer (`sub`). */
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
  /** What the authorization provider stored with the grant (its consent page's `props`); absent for other tokens. */
  readonly props?: unknown;
}

/**
 * Checks one access token for this resource: the principal, or why the token is refused (a
 * sentence for the developer; the client gets 401 `invalid_token` with it). It must check the
 * audience: a token issued for another resource is refused (RFC 8707, MCP "Token Audience
 * Binding and Validation"). `env` is the request's environment, for a verifier that needs its
 * bindings (an authorization provider in the same Worker keeps its grants in a KV namespace).
 */
export type TokenVerifier = (token: string, resource: string, env: Readonly<Record<string, unknown>>) => Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
