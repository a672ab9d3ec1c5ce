/**
 * A `TokenVerifier` for access tokens issued by `@cloudflare/workers-oauth-provider` running as
 * the authorization server in the same server (its `OAuthAuthorizationServer`: in the Worker, or
 * in a Deno process with its KV namespace over Deno KV), or reached over a Service Binding: the
 * provider looks the token up in its KV namespace, checks that it was issued for this resource
 * (RFC 8707 audience) and has not expired, and decrypts the grant's props.
 *
 * A DPoP-bound token: the provider has no `cnf` of its own, so the authorization server keeps the
 * key's thumbprint in the token's props, as `cnf: { jkt }` (the JWT claim's shape, RFC 9449 §6.1):
 * the principal carries it, and the resource server asks for a proof signed by that key.
 *
 * Typed by shape, not by import, so the package does not depend on the provider: anything with
 * its `validateToken(resource, token, env)` will do.
 *
 * @example
 * const authServer = new OAuthAuthorizationServer({ issuer, resources: [`${issuer}/mcp`], … });
 * createWorker(server, { authorization: oauth({ verify: providerVerifier(() => authServer) }) });
 * // On Deno (durable-mcp/deno), the provider's KV namespace is `kvNamespace(kv)`: see example/oauth/deno.ts.
 */
import type { Principal } from "../../shared/auth/Principal.ts";
import type { TokenVerifier } from "./TokenVerifier.ts";

/** What the provider's `validateToken` resolves with (its `ValidatedAccessToken`). */
export interface ValidatedToken {
  userId: string;
  clientId: string;
  scope: readonly string[];
  audience: string | readonly string[];
  /** Epoch seconds. */
  expiresAt: number;
  props: unknown;
}

/** The provider's `OAuthAuthorizationServer`, or its Service Binding, as far as verification needs it. */
export interface TokenValidator {
  validateToken(resource: string, token: string, env: never): Promise<ValidatedToken | null>;
}

export interface ProviderVerifierOptions {
  /** The provider's issuer, for `ctx.auth.issuer`. Default: the resource's origin (a provider in this Worker). */
  issuer?: string;
}

/**
 * @param validator the provider for a resource (one per origin when the issuer follows the request's host)
 */
export function providerVerifier(validator: (resource: string, env: Readonly<Record<string, unknown>>) => TokenValidator, options: ProviderVerifierOptions = {}): TokenVerifier {
  return async (token, resource, env) => {
    let validated: ValidatedToken | null;
    try {
      validated = await validator(resource, env).validateToken(resource, token, env as never);
    } catch (error) {
      // The provider rejects (TypeError) a resource it does not declare: no token is valid for it.
      // Anything else (its storage failing) is the server's trouble, not the token's.
      if (error instanceof TypeError) return { ok: false, reason: "The access token was not issued for this resource" };
      throw error;
    }
    if (!validated) return { ok: false, reason: "The access token is unknown, expired, revoked or issued for another resource" };
    const jkt = boundThumbprint(validated.props);
    const principal: Principal = {
      issuer: options.issuer ?? new URL(resource).origin,
      subject: validated.userId,
      scopes: [...validated.scope],
      claims: { client_id: validated.clientId, aud: validated.audience, exp: validated.expiresAt },
      props: validated.props,
      ...(jkt !== undefined && { keyThumbprint: jkt }),
    };
    return { ok: true, principal };
  };
}

/** `props.cnf.jkt`, where the authorization server keeps a DPoP-bound token's key thumbprint. */
export function boundThumbprint(props: unknown): string | undefined {
  const cnf = typeof props === "object" && props !== null ? (props as { cnf?: unknown }).cnf : undefined;
  const jkt = typeof cnf === "object" && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === "string" && jkt !== "" ? jkt : undefined;
}
