/**
 * The `WWW-Authenticate` value of a protected resource's 401 or 403 (RFC 6750 §3, RFC 9728 §5.1,
 * MCP 2025-11-25 "Protected Resource Metadata Discovery Requirements"): the `Bearer` scheme, the
 * absolute URL of the protected-resource metadata (Claude ignores a relative one), the scopes the
 * request needs, and, when a token was sent and refused, the error code.
 *
 * Values are quoted strings: a `"` or `\` in one is escaped (RFC 9110 §5.6.4), and characters a
 * header cannot carry are refused where they come from (scopes, descriptions), not here.
 *
 * Not here: deciding which error applies (the verifier), the response around it (the boundary).
 */

/** RFC 6750 §3.1 error codes a resource server sends in its challenge. */
export type BearerError = "invalid_request" | "invalid_token" | "insufficient_scope";

export interface BearerChallenge {
  /** Absolute URL of the protected-resource metadata document. */
  resourceMetadata: string;
  /** Scopes the request needs; omitted from the header when empty. */
  scopes?: readonly string[];
  /** Absent when no token was sent (RFC 6750 §3.1: the client is not told an error then). */
  error?: BearerError;
  /** A sentence for the developer, in printable ASCII. */
  description?: string;
}

/**
 * @example
 * bearerChallenge({ resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scopes: ["tools"] })
 * // 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="tools"'
 */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: [string, string][] = [["resource_metadata", challenge.resourceMetadata]];
  if (challenge.scopes && challenge.scopes.length > 0) params.push(["scope", challenge.scopes.join(" ")]);
  if (challenge.error) params.push(["error", challenge.error]);
  if (challenge.description) params.push(["error_description", printable(challenge.description)]);
  return `Bearer ${quotedParams(params)}`;
}

/** Auth parameters as `name="value"` pairs, each value escaped (RFC 9110 §5.6.4). */
export function quotedParams(params: readonly (readonly [string, string])[]): string {
  return params.map(([name, value]) => `${name}="${value.replace(/["\\]/g, "\\$&")}"`).join(", ");
}

/** RFC 6750 §3: error_description is limited to %x20-21 / %x23-5B / %x5D-7E; anything else becomes "?". */
export function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?");
}
