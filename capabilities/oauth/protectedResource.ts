/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for an MCP endpoint: the document that tells a
 * client which authorization servers issue tokens for this server and which scopes exist, and the
 * URLs it is served at.
 *
 * Both well-known URLs are served (MCP 2025-11-25 "Protected Resource Metadata Discovery"): the
 * path-inserted one first in the client's order — `/.well-known/oauth-protected-resource/mcp`
 * for an endpoint at `/mcp`, which Claude probes first — and the root one,
 * `/.well-known/oauth-protected-resource`. `resource` is the canonical URL of the MCP endpoint
 * (RFC 8707 §2: scheme and host lower case, no fragment, no trailing slash), the very value a
 * token's audience must name; for a custom domain the deployer sets it.
 *
 * Not here: verifying tokens, the 401 itself (`bearerChallenge`).
 */

export interface ProtectedResourceOptions {
  /** The canonical URL of the MCP endpoint, e.g. https://mcp.example.com/mcp. */
  resource: string;
  /** Issuer URLs of the authorization servers that issue tokens for it; at least one. */
  authorizationServers: readonly string[];
  /** The scopes a client may ask for. */
  scopesSupported?: readonly string[];
  /** A human-readable name for consent screens. */
  resourceName?: string;
  /** The DPoP proof algorithms accepted, and whether every token must be DPoP-bound (RFC 9728 §2). */
  dpop?: { algorithms: readonly string[]; required: boolean };
}

/** The metadata document (RFC 9728 §2), as JSON-ready data. */
export function protectedResourceMetadata(options: ProtectedResourceOptions): Record<string, unknown> {
  const document: Record<string, unknown> = {
    resource: canonicalResource(options.resource),
    authorization_servers: [...options.authorizationServers],
    // Only the header: a token in a form body or a query string is refused (`readBearerToken`).
    bearer_methods_supported: ["header"],
  };
  if (options.scopesSupported) document.scopes_supported = [...options.scopesSupported];
  if (options.resourceName) document.resource_name = options.resourceName;
  if (options.dpop) {
    document.dpop_signing_alg_values_supported = [...options.dpop.algorithms];
    if (options.dpop.required) document.dpop_bound_access_tokens_required = true;
  }
  return document;
}

/**
 * The paths the metadata is served at: the path-inserted one (RFC 9728 §3.1), then the root
 * one; a single path when the endpoint is the root itself.
 *
 * @example metadataPaths("https://mcp.example.com/mcp") // ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
 */
export function metadataPaths(resource: string): string[] {
  const path = new URL(canonicalResource(resource)).pathname;
  const root = "/.well-known/oauth-protected-resource";
  return path === "/" ? [root] : [`${root}${path}`, root];
}

/** The host names a resource may be taken from the request on (`URL.hostname` spellings): this machine only. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether `hostname` (as `URL.hostname` spells it, or bare `::1`) names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname === "::1";
}

/**
 * RFC 8707 §2 canonical form: absolute, https (or http for loopback development), no fragment,
 * no query, scheme and host lower case (URL does that), no trailing slash but for the root.
 *
 * @throws TypeError naming the value, at startup, for anything else.
 */
export function canonicalResource(resource: string): string {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new TypeError(`The protected resource must be an absolute URL such as https://mcp.example.com/mcp, got ${JSON.stringify(resource)}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    throw new TypeError(`The protected resource must use https (http only on a loopback host), got ${JSON.stringify(resource)}`);
  }
  if (url.hash || url.search) throw new TypeError(`The protected resource may carry no query or fragment, got ${JSON.stringify(resource)}`);
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : "";
  return `${url.protocol}//${url.host}${path}`;
}
