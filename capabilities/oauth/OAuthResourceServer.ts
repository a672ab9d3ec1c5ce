/**
 * The OAuth 2.1 resource server in front of the MCP endpoints, made by `oauth()` (MCP 2025-11-25 and 2026-07-28
 * "Authorization"): it serves the protected-resource metadata, and authenticates every other
 * request from its own bearer token — before any session, object or handler is reached.
 *
 * - No token: 401 with a challenge naming the metadata's absolute URL and the scopes needed, and
 *   no error code (RFC 6750 §3.1).
 * - A token refused by the verifier (forged, expired, another resource's): 401 `invalid_token`.
 * - A token lacking a needed scope: 403 `insufficient_scope`, naming every scope needed (step-up).
 * - A malformed credential, or a token in the URL: 400 `invalid_request`.
 * - DPoP (RFC 9449, `DpopGuard`): a token bound to a key is accepted only under the `DPoP` scheme
 *   with a valid proof for this request, else 401 `invalid_dpop_proof` (a bad proof) or
 *   `invalid_token` (a bound token as Bearer, an unbound one as DPoP). Every 401 carries the
 *   `DPoP` challenge with the algorithms accepted, beside the `Bearer` one — which is left out,
 *   with bearer tokens refused, where `dpop.required` is set. The proof's `htu` is compared on the
 *   resource's origin: TLS may end at a proxy, so the request's own URL may say http or another host.
 *
 * The resource is the canonical URL of the MCP endpoint, the audience every token must name: the
 * configured `resource`, or — only on a loopback host (local development) — the request's own
 * origin, port included, with `/mcp`. Anywhere else the request's Host is the client's to write,
 * so taking the audience from it would let a token the same issuer minted for another resource
 * pass: such a request is answered 500 with the sentence that says to set `resource`
 * (a process that serves HTTP itself refuses to start instead: `bindProblem`). Where the runtime knows the port it serves on,
 * a loopback request addressed to another port is refused (403): its token is for another local
 * server. Both are thrown as `McpError` from `resourceOf`, which three answers need; the router's
 * one boundary maps them. The legacy endpoints (`/sse`, `/message`) are a resource
 * of their own, `/sse` beside it, with its own metadata: a legacy client (the SDK's SSE transport)
 * accepts only metadata whose resource is its URL or a prefix of it, so `/mcp` would be refused.
 * A token is for one of the two (its audience). The principal is established per request, never
 * kept.
 *
 * Not here: which routes it guards (the router), what the principal may do in a session (the
 * session binds to it), rate limits.
 */
import { type Checked, passed, refused } from "../../shared/errors/Checked.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { type BearerError, bearerChallenge } from "./bearerChallenge.ts";
import { lacking } from "../../shared/auth/grants.ts";
import type { Principal } from "../../shared/auth/Principal.ts";
import type { ResourceServer } from "../../shared/auth/ResourceServer.ts";
import { canonicalResource, isLoopbackHost, metadataPaths, protectedResourceMetadata } from "./protectedResource.ts";
import { type DpopOptions, type DpopRefusal, DpopGuard } from "./DpopGuard.ts";
import { type DpopError, dpopChallenge } from "./dpopChallenge.ts";
import { type AccessCredential, readBearerToken } from "./readBearerToken.ts";
import type { TokenVerifier } from "./TokenVerifier.ts";

/** The MCP endpoint's path when the resource is derived from the request. */
const MCP_PATH = "/mcp";
/** The legacy endpoints' resource, beside the MCP endpoint's, and the paths it covers. */
const LEGACY_PATH = "/sse";
const LEGACY_PATHS: ReadonlySet<string> = new Set([LEGACY_PATH, "/message"]);

export interface AuthorizationOptions {
  /**
   * Issuer URLs of the authorization servers whose tokens are accepted. Default: this server's own
   * origin — an authorization server in the same Worker (`@cloudflare/workers-oauth-provider`).
   */
  authorizationServers?: readonly string[];
  /** Checks a token: `jwtVerifier(...)`, the Worker's own authorization provider, or yours. */
  verify: TokenVerifier;
  /**
   * The canonical URL of the MCP endpoint, e.g. `https://mcp.example.com/mcp`: what tokens' audience
   * must name. Required unless the server is reached on a loopback host only (then: the request's
   * origin + `/mcp`).
   */
  resource?: string;
  /** The scopes a client may ask for (`scopes_supported`). */
  scopesSupported?: readonly string[];
  /** The scopes every MCP request needs. Default: none beyond a valid token. */
  requiredScopes?: readonly string[];
  /** A name for consent screens (`resource_name`). */
  resourceName?: string;
  /**
   * DPoP-bound tokens (RFC 9449): always checked; `required: true` refuses plain bearer tokens,
   * `algorithms` lists the proof algorithms accepted. Default: bearer and DPoP-bound tokens both work.
   */
  dpop?: DpopOptions;
}

export class OAuthResourceServer implements ResourceServer {
  readonly #options: AuthorizationOptions;
  readonly #fixedResource: string | undefined;
  readonly #port: (() => number | undefined) | undefined;
  readonly #dpop: DpopGuard;

  /**
   * @param runtime `port`: the port this server serves on, where the runtime knows it (Deno).
   * @throws TypeError at startup for a malformed resource, or an empty list of authorization servers.
   */
  constructor(options: AuthorizationOptions, runtime: { port?: () => number | undefined } = {}) {
    this.#port = runtime.port;
    if (options.authorizationServers?.length === 0) throw new TypeError("Authorization needs at least one authorization server: leave authorizationServers out for this server's own origin");
    if (typeof options.verify !== "function") throw new TypeError("Authorization needs a verify function: jwtVerifier(…), providerVerifier(…) or your own");
    this.#options = options;
    this.#dpop = new DpopGuard(options.dpop);
    this.#fixedResource = options.resource === undefined ? undefined : canonicalResource(options.resource);
  }

  /** The protected-resource metadata, if `request` asks for it at one of its well-known URLs; else undefined. */
  metadata(request: Request): Response | undefined {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const path = new URL(request.url).pathname;
    const mcp = this.#mcpResource(request);
    // The MCP endpoint's first: the root document describes it.
    const resource = [mcp, legacyResource(mcp)].find((r) => metadataPaths(r).includes(path));
    if (resource === undefined) return undefined;
    const { scopesSupported, resourceName } = this.#options;
    const authorizationServers = this.#options.authorizationServers ?? [new URL(resource).origin];
    const dpop = { algorithms: this.#dpop.algorithms, required: this.#dpop.required };
    return Response.json(protectedResourceMetadata({ resource, authorizationServers, scopesSupported, resourceName, dpop }), {
      headers: { "cache-control": "public, max-age=300" },
    });
  }

  /** The request's principal, or the refusal (401, 403 or 400, with its `WWW-Authenticate`; 429 or 503 when DPoP proofs cannot be remembered). */
  async authenticate(request: Request, env: Readonly<Record<string, unknown>>, needed: readonly string[] = this.#options.requiredScopes ?? []): Promise<Checked<Principal>> {
    const resource = this.resourceOf(request);
    const read = readBearerToken(request);
    if (!read.ok) return refused(this.#refusal(resource, 400, "invalid_request", read.error.message, needed, undefined));
    const credential = read.value;
    if (credential === undefined) return refused(this.#refusal(resource, 401, undefined, "This server needs an access token: see its protected-resource metadata", needed, undefined));
    const early = this.#dpop.refuseScheme(credential);
    if (early) return refused(this.#dpopRefusal(resource, early, needed, credential));
    const verified = await this.#options.verify(credential.token, resource, env);
    if (!verified.ok) return refused(this.#refusal(resource, 401, "invalid_token", verified.reason, needed, credential.scheme));
    // The request's path on the resource's origin: spelled out, since a path `//host/…` resolved as a URL would name another origin.
    const dpop = await this.#dpop.check(request, credential, verified.principal, `${new URL(resource).origin}${new URL(request.url).pathname}`);
    if (dpop) return refused(this.#dpopRefusal(resource, dpop, needed, credential));
    const lacks = lacking(needed, verified.principal.scopes);
    if (lacks !== "") return refused(this.#refusal(resource, 403, "insufficient_scope", `The access token lacks ${lacks}`, needed, credential.scheme));
    return passed(verified.principal);
  }

  /**
   * The 403 for a request whose token lacks `needed` (scopes a definition declares). The challenge
   * names them with the scopes already `granted`, so a client that asks for exactly these keeps
   * what it had (MCP "Scope Challenge Handling").
   */
  insufficientScope(request: Request, needed: readonly string[], granted: readonly string[]): McpError {
    const message = `The access token lacks ${lacking(needed, granted)} this request needs`;
    const scheme = /^dpop /i.test(request.headers.get("authorization") ?? "") ? "dpop" : "bearer";
    return this.#refusal(this.resourceOf(request), 403, "insufficient_scope", message, [...new Set([...needed, ...granted])], scheme);
  }

  /** Why requests addressed like `request` cannot be served (no `resource`, a host that is not loopback); undefined when they can. */
  addressProblem(request: Request): McpError | undefined {
    if (this.#fixedResource !== undefined) return undefined;
    const { hostname } = new URL(request.url);
    return isLoopbackHost(hostname) ? undefined : resourceRequired(hostname);
  }

  /**
   * Why a process bound to `hostname` may not check tokens as configured: without `resource`, it
   * answers a name that is not loopback (it binds another host, or `allowedHosts` lets other names
   * in, or, empty, any) — else undefined. Tokens' audience is never taken from a Host header a
   * client writes.
   */
  bindProblem(hostname: string, allowedHosts: readonly string[]): TypeError | undefined {
    if (this.#fixedResource !== undefined) return undefined;
    if (!isLoopbackHost(hostname)) return new TypeError(resourceRequiredSentence(`it binds ${JSON.stringify(hostname)}, not a loopback host`));
    const foreign = allowedHosts.length === 0 ? "any host name" : allowedHosts.find((name) => !isLoopbackHost(name));
    return foreign === undefined ? undefined : new TypeError(resourceRequiredSentence(`ALLOWED_HOSTS lets it answer ${foreign === "any host name" ? foreign : JSON.stringify(foreign)}`));
  }

  /** The canonical resource a request is addressed to (see the module header). */
  resourceOf(request: Request): string {
    const mcp = this.#mcpResource(request);
    return LEGACY_PATHS.has(new URL(request.url).pathname) ? legacyResource(mcp) : mcp;
  }

  #mcpResource(request: Request): string {
    if (this.#fixedResource !== undefined) return this.#fixedResource;
    const url = new URL(request.url);
    if (!isLoopbackHost(url.hostname)) throw resourceRequired(url.hostname);
    const port = this.#port?.();
    const addressed = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    if (port !== undefined && addressed !== port) {
      throw new McpError(403, ErrorCode.InvalidRequest, `This server is bound to port ${port}, and this request is addressed to port ${addressed}: it is for another server`);
    }
    return canonicalResource(new URL(MCP_PATH, url).href);
  }

  /**
   * A refusal of a request addressed to `resource`, with the challenges that point at its metadata:
   * `Bearer` (first: clients that know only it read the first challenge) unless DPoP is required,
   * then `DPoP`. The error goes into the challenge of the scheme the request used.
   */
  #refusal(resource: string, status: number, error: DpopError | undefined, message: string, scopes: readonly string[], scheme: AccessCredential["scheme"] | undefined): McpError {
    const resourceMetadata = new URL(metadataPaths(resource)[0]!, resource).href;
    const algorithms = this.#dpop.algorithms;
    const description = error ? message : undefined;
    let challenge: string;
    if (this.#dpop.required) {
      challenge = dpopChallenge({ algorithms, resourceMetadata, scopes, error, description });
    } else if (scheme === "dpop") {
      challenge = `${bearerChallenge({ resourceMetadata, scopes })}, ${dpopChallenge({ algorithms, error, description })}`;
    } else {
      challenge = `${bearerChallenge({ resourceMetadata, scopes, error: error as BearerError | undefined, description })}, ${dpopChallenge({ algorithms })}`;
    }
    return new McpError(status, ErrorCode.InvalidRequest, message, undefined, { "www-authenticate": challenge });
  }

  /** A DPoP refusal as an answer: 401 with its challenge, or 429/503 with when to retry. */
  #dpopRefusal(resource: string, refusal: DpopRefusal, scopes: readonly string[], credential: AccessCredential): McpError {
    if (refusal.status === 401) {
      // A bound token sent as Bearer is told so in the DPoP challenge: that is the scheme to use.
      const scheme = refusal.error === "invalid_token" && credential.scheme === "bearer" ? "dpop" : credential.scheme;
      return this.#refusal(resource, 401, refusal.error, refusal.message, scopes, scheme);
    }
    const retry = refusal.retryAfterSeconds;
    return new McpError(refusal.status, ErrorCode.ServerBusy, refusal.message, { retryAfterSeconds: retry }, { "retry-after": String(retry) });
  }
}

/** The legacy endpoints' resource for an MCP endpoint's: `/sse` on its origin. */
export function legacyResource(mcpResource: string): string {
  return canonicalResource(new URL(LEGACY_PATH, mcpResource).href);
}

/** The deployment problem of a server that checks tokens, has no `resource`, and is reached on `host` (not loopback). */
export function resourceRequired(host: string): McpError {
  return new McpError(500, ErrorCode.InternalError, resourceRequiredSentence(`this request is addressed to ${JSON.stringify(host)}`));
}

/** The sentence for a server that checks tokens without a `resource`, off loopback; `where` says how it is reached. */
function resourceRequiredSentence(where: string): string {
  return `This server checks access tokens but has no \`resource\` configured, and ${where}: set \`resource\` in the authorization options to the URL clients use for the MCP endpoint (e.g. https://mcp.example.com/mcp), the audience their tokens must name; only a server reached on a loopback host takes it from the request`;
}
