/**
 * How the key of a token request's DPoP proof reaches whatever issues the token: the token
 * endpoint (`dpopTokens.ts`) checks the proof, then hands the provider a copy of that one
 * request's environment carrying the key's thumbprint under a symbol no binding can have; the
 * provider's `tokenExchangeCallback`, the enterprise grant's `mapClaims` and the client
 * credentials grant read it back and bind their token to it (`cnf.jkt`, RFC 9449 §6). Nothing is
 * shared between concurrent requests.
 */

const PROOF_KEY = Symbol("DPoP proof key thumbprint");

/** A copy of `env` that carries `thumbprint` as the key of this request's proof. */
export function withProofKey<E extends object>(env: E, thumbprint: string): E {
  return { ...env, [PROOF_KEY]: thumbprint };
}

/** The thumbprint of the key this token request's proof named; undefined without a proof. */
export function proofKeyOf(env: object): string | undefined {
  return (env as { [PROOF_KEY]?: string })[PROOF_KEY];
}
