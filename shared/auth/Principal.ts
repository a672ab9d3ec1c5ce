/**
 * Who a request acts for, as the resource server established it from the request's own access
 * token (never cached with a session): the issuer and subject that name the user, the scopes the
 * token grants, and its claims (a JWT's payload, or an authorization provider's props).
 *
 * Not here: how a token is checked (the oauth capability's `TokenVerifier`), what a scope allows
 * (the definitions).
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
  /**
   * The thumbprint (RFC 7638, SHA-256) of the key the token is bound to (its `cnf.jkt`, RFC 9449
   * §6): such a token is accepted only with a DPoP proof signed by that key. Absent for a bearer token.
   */
  readonly keyThumbprint?: string;
}

