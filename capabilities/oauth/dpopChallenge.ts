/**
 * The `DPoP` challenge of a protected resource's 401 (RFC 9449 §7.1): the algorithms it accepts
 * proofs in (`algs`), and, when a DPoP request was refused, the error and a description. Where
 * plain bearer tokens are not accepted it is the only challenge, so it also names the metadata
 * URL and the scopes, as the `Bearer` one does (MCP clients read them under either scheme).
 *
 * Not here: which error applies (`OAuthResourceServer`), the `Bearer` challenge beside it.
 */
import { printable, quotedParams } from "./bearerChallenge.ts";

/** RFC 9449 §7.1 and RFC 6750 §3.1 error codes a DPoP challenge carries. */
export type DpopError = "invalid_dpop_proof" | "invalid_token" | "invalid_request" | "insufficient_scope";

export interface DpopChallenge {
  /** The proof algorithms accepted. */
  algorithms: readonly string[];
  /** Absolute URL of the protected-resource metadata, when this is the only challenge. */
  resourceMetadata?: string;
  /** The scopes the request needs, when this is the only challenge; omitted when empty. */
  scopes?: readonly string[];
  error?: DpopError;
  /** A sentence for the developer (non-printable characters become "?"). */
  description?: string;
}

/**
 * @example
 * dpopChallenge({ algorithms: ["ES256", "EdDSA"], error: "invalid_dpop_proof", description: "The DPoP proof is older than 60 s" })
 * // 'DPoP algs="ES256 EdDSA", error="invalid_dpop_proof", error_description="The DPoP proof is older than 60 s"'
 */
export function dpopChallenge(challenge: DpopChallenge): string {
  const params: [string, string][] = [["algs", challenge.algorithms.join(" ")]];
  if (challenge.resourceMetadata) params.push(["resource_metadata", challenge.resourceMetadata]);
  if (challenge.scopes && challenge.scopes.length > 0) params.push(["scope", challenge.scopes.join(" ")]);
  if (challenge.error) params.push(["error", challenge.error]);
  if (challenge.description) params.push(["error_description", printable(challenge.description)]);
  return `DPoP ${quotedParams(params)}`;
}
