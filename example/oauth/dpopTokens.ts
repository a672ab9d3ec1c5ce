/**
 * DPoP-bound tokens from the example's authorization server (RFC 9449 §5): a client that sends a
 * DPoP proof to `/token` gets an access token bound to the proof's key — `token_type: "DPoP"`, the
 * key's thumbprint kept in the token's props as `cnf: { jkt }`, where `providerVerifier` reads it —
 * and the resource server then takes that token only with a proof by the same key. A public
 * client's refresh token is bound to the key too (RFC 9449 §5: it has no other sender
 * constraint): the grant keeps the thumbprint, and a refresh without a proof by that key is
 * refused with `invalid_dpop_proof`. A confidential client's refresh token is bound by its client
 * authentication, and each refresh may bind the new access token to whichever key its proof names.
 *
 * The provider has no DPoP of its own, so this wraps its token endpoint: the proof is checked
 * here (the same check as the resource server's, less `ath`: no token comes with it), the key's
 * thumbprint is handed to the provider's `tokenExchangeCallback` on the environment object of
 * this one request (`bindToDpopKey`), and the answer's `token_type` says DPoP.
 *
 * Not here: server nonces (§8: not asked for); the `dpop_jkt` authorization request parameter (§10).
 */
import { GrantType, OAuthError, type OAuthHelpers, type TokenExchangeCallbackOptions, type TokenExchangeCallbackResult } from "@cloudflare/workers-oauth-provider";
import { checkDpopProof, DpopReplayStore } from "durable-mcp";
import { amendJson } from "./amendJson.ts";
import { proofKeyOf, withProofKey } from "./proofKey.ts";

/** The grant's prop that binds a public client's refresh token to a key. */
const REFRESH_KEY_PROP = "dpopRefreshJkt";
const NO_STORE = { "cache-control": "no-store" };

/** The proof algorithms this server takes, named in its metadata. */
const PROOF_ALGORITHMS = ["ES256", "EdDSA"];

/** The proofs this isolate accepted at `/token`, per key: each is good for one token request. */
const replays = new DpopReplayStore();

/**
 * The token endpoint's answer: without a `DPoP` header, the provider's as it is; with one, a proof
 * that must hold for this request, then the provider's answer with `token_type: "DPoP"`.
 * @param issue the provider's token endpoint, given the environment to hand its callback
 */
export async function dpopTokenEndpoint<E extends object>(request: Request, env: E, issue: (env: E) => Promise<Response>): Promise<Response> {
  const proof = request.headers.get("dpop");
  if (proof === null) return issue(env);
  const url = new URL(request.url);
  const checked = await checkDpopProof(proof, { method: request.method, url: `${url.origin}${url.pathname}`, algorithms: PROOF_ALGORITHMS });
  if (!checked.ok) return invalidProof(checked.reason);
  const used = replays.use(checked.thumbprint, checked.jti);
  if (!used.ok) {
    if (used.replayed) return invalidProof('The DPoP proof was used before: each proof (its "jti") is good for one request');
    return Response.json({ error: "temporarily_unavailable", error_description: "Too many DPoP proofs at once" }, { status: 503, headers: { ...NO_STORE, "retry-after": String(used.retryAfterSeconds) } });
  }
  // Errors, and a revocation's empty answer, go out as the provider gave them.
  return amendJson(await issue(withProofKey(env, checked.thumbprint)), (body) => (typeof body.access_token === "string" ? { ...body, token_type: "DPoP" } : body));
}

/**
 * The provider's `tokenExchangeCallback`: the access token's props carry `cnf.jkt` when the token
 * request came with a proof; a public client's code exchange binds the grant's refresh to that
 * key; a refresh of a bound grant needs a proof by the same key.
 * @param helpers the provider's helpers, to tell a public client (no client authentication) from a confidential one
 */
export async function bindToDpopKey(options: TokenExchangeCallbackOptions<object>, helpers: OAuthHelpers): Promise<TokenExchangeCallbackResult> {
  const jkt = proofKeyOf(options.env);
  const refreshJkt = (options.props as Record<string, unknown> | undefined)?.[REFRESH_KEY_PROP];
  // No proof, and a grant bound to no key: the props stay as they are.
  if (jkt === undefined && refreshJkt === undefined) return {};
  const { [REFRESH_KEY_PROP]: _, ...props } = (options.props ?? {}) as Record<string, unknown>;
  if (options.grantType === GrantType.REFRESH_TOKEN && refreshJkt !== undefined && jkt !== refreshJkt) {
    throw new OAuthError("invalid_dpop_proof", { description: "This refresh token is bound to a DPoP key: refresh with a proof signed by that key" });
  }
  const accessTokenProps = jkt === undefined ? props : { ...props, cnf: { jkt } };
  if (options.grantType !== GrantType.AUTHORIZATION_CODE || jkt === undefined) return { accessTokenProps };
  const client = await helpers.lookupClient(options.clientId);
  return client?.tokenEndpointAuthMethod === "none" ? { accessTokenProps, newProps: { ...props, [REFRESH_KEY_PROP]: jkt } } : { accessTokenProps };
}

/** The authorization server's metadata document (RFC 8414), naming the proof algorithms it takes (RFC 9449 §5.1). */
export function dpopMetadata(document: Record<string, unknown>): Record<string, unknown> {
  return { ...document, dpop_signing_alg_values_supported: PROOF_ALGORITHMS };
}

function invalidProof(description: string): Response {
  return Response.json({ error: "invalid_dpop_proof", error_description: description }, { status: 400, headers: NO_STORE });
}
