/**
 * The DPoP rules of a resource server (RFC 9449 §7), between a verified token and the request it
 * came with:
 * - a token bound to a key (`Principal.keyThumbprint`) comes under the `DPoP` scheme with exactly
 *   one proof, valid for this request (`checkDpopProof`), signed by that key, its `jti` not seen
 *   before (`DpopReplayStore`); sent as `Bearer` it is refused (§7.2: a bound token must not
 *   pass as a bearer one);
 * - a token under the `DPoP` scheme must be bound: the scheme promises a binding the token lacks;
 * - with `required`, a plain bearer token is refused.
 *
 * Answers a refusal to put in the challenge, or undefined when the request may go on.
 *
 * Not here: the token itself (the verifier), the challenge and status (`OAuthResourceServer`).
 */
import type { Principal } from "../../shared/auth/Principal.ts";
import type { AccessCredential } from "./readBearerToken.ts";
import { asymmetricOnly, checkDpopProof, DEFAULT_DPOP_ALGORITHMS } from "./checkDpopProof.ts";
import type { DpopError } from "./dpopChallenge.ts";
import { DpopReplayStore } from "./DpopReplayStore.ts";

export interface DpopOptions {
  /** Refuse plain bearer tokens: every token must be DPoP-bound. Default false (both are accepted). */
  required?: boolean;
  /** Proof algorithms accepted, asymmetric only. Default: ES256, ES384, EdDSA, PS256, RS256. */
  algorithms?: readonly string[];
}

export type DpopRefusal = { status: 401; error: DpopError; message: string } | { status: 429 | 503; message: string; retryAfterSeconds: number };

export class DpopGuard {
  readonly required: boolean;
  readonly algorithms: readonly string[];
  readonly #replays: DpopReplayStore;

  /** @throws TypeError at startup for an algorithm list that is empty or names a symmetric algorithm or `none`. */
  constructor(options: DpopOptions = {}, replays = new DpopReplayStore()) {
    this.required = options.required ?? false;
    this.algorithms = [...(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS)];
    if (!asymmetricOnly(this.algorithms)) throw new TypeError(`dpop.algorithms must name asymmetric JWS algorithms only (RFC 9449 §11.6), got ${JSON.stringify(this.algorithms)}`);
    this.#replays = replays;
  }

  /** The refusal of a plain bearer credential before its token is checked, where only DPoP is accepted. */
  refuseScheme(credential: AccessCredential): DpopRefusal | undefined {
    if (credential.scheme === "bearer" && this.required) return invalid("invalid_token", "This server accepts only DPoP-bound access tokens, under the DPoP scheme with a proof");
    return undefined;
  }

  /** The refusal of a verified token and its request under the rules above; undefined when they hold. `url`: what the proof's `htu` must name. */
  async check(request: Request, credential: AccessCredential, principal: Principal, url: string): Promise<DpopRefusal | undefined> {
    const bound = principal.keyThumbprint;
    if (credential.scheme === "bearer") {
      return bound === undefined ? undefined : invalid("invalid_token", "This access token is bound to a key: send it under the DPoP scheme, with a proof");
    }
    if (bound === undefined) return invalid("invalid_token", "This access token is not bound to a key: send it under the Bearer scheme");
    const proof = request.headers.get("dpop");
    if (proof === null) return invalid("invalid_dpop_proof", "A DPoP-bound access token needs a DPoP proof in the DPoP header");
    const checked = await checkDpopProof(proof, { method: request.method, url, accessToken: credential.token, algorithms: this.algorithms });
    if (!checked.ok) return invalid("invalid_dpop_proof", checked.reason);
    if (checked.thumbprint !== bound) return invalid("invalid_dpop_proof", "The DPoP proof is signed by another key than the one the access token is bound to");
    const used = this.#replays.use(JSON.stringify([principal.issuer, principal.subject]), checked.jti);
    if (used.ok) return undefined;
    if (used.replayed) return invalid("invalid_dpop_proof", 'The DPoP proof was used before: each proof (its "jti") is good for one request');
    return used.whose === "principal"
      ? { status: 429, message: `Too many DPoP proofs from this user within their window: retry after ${used.retryAfterSeconds} s`, retryAfterSeconds: used.retryAfterSeconds }
      : { status: 503, message: `This server remembers as many DPoP proofs as it can: retry after ${used.retryAfterSeconds} s`, retryAfterSeconds: used.retryAfterSeconds };
  }
}

function invalid(error: DpopError, message: string): DpopRefusal {
  return { status: 401, error, message };
}
