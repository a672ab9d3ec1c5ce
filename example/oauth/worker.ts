/**
 * The example server behind OAuth 2.1, as one Worker: `@cloudflare/workers-oauth-provider` is the
 * authorization server (its grants and tokens in the `OAUTH_KV` namespace) and durable-mcp the
 * resource server in front of the MCP endpoints. Served here:
 *
 * - `/.well-known/oauth-protected-resource/mcp` (and at the root): which authorization server
 *   issues tokens for `<origin>/mcp` — durable-mcp;
 * - `/.well-known/oauth-authorization-server`, `/token` (issue, refresh, revoke) and `/register`
 *   (dynamic client registration): the provider, which also accepts client ID metadata documents
 *   (the client ID is an HTTPS URL), requires PKCE S256 and sends RFC 9207 `iss`;
 * - `/authorize`: the consent page (`consent.ts`);
 * - everything else: the MCP endpoints of every era, each request checked against its token.
 *
 * The issuer is the origin the request came to (`https://<name>.<account>.workers.dev`, or your
 * domain), so the same code serves `wrangler dev` and a deployment; each origin gets its own
 * provider instance (Cloudflare routes only your own host names to the Worker; at most
 * MAX_ORIGINS are kept). The resource server, though, takes its resource from the request only on
 * a loopback host (`wrangler dev`): deployed, set `MCP_RESOURCE` (wrangler.toml `[vars]`) to the
 * MCP endpoint's URL, or every MCP request is answered 500 with the sentence that says so.
 */
import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { oauth } from "durable-mcp";
import { createWorker, providerVerifier, type WorkerEnv } from "durable-mcp/cloudflare";
import { type ConsentEnv, consent } from "./consent.ts";
import server, { BASE_SCOPE, SCOPES } from "./server.ts";

type Env = WorkerEnv & ConsentEnv & { OAUTH_KV: KVNamespace };

const AUTHORIZE_PATH = "/authorize";
const TOKEN_PATH = "/token";
const REGISTER_PATH = "/register";
const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
/** Origins remembered at once; one deployment has one or two (workers.dev and a custom domain). */
const MAX_ORIGINS = 8;

const providers = new Map<string, OAuthAuthorizationServer<Env>>();

/** The authorization server whose issuer is `origin`, made on first use. */
function providerFor(origin: string): OAuthAuthorizationServer<Env> {
  let provider = providers.get(origin);
  if (!provider) {
    if (providers.size >= MAX_ORIGINS) providers.delete(providers.keys().next().value!);
    provider = new OAuthAuthorizationServer<Env>({
      issuer: origin,
      // The MCP endpoint, and the legacy endpoints' resource (see OAuthResourceServer).
      resources: [`${origin}/mcp`, `${origin}/sse`],
      defaultResource: `${origin}/mcp`,
      authorizeEndpoint: `${origin}${AUTHORIZE_PATH}`,
      tokenEndpoint: `${origin}${TOKEN_PATH}`,
      clientRegistrationEndpoint: `${origin}${REGISTER_PATH}`,
      scopesSupported: SCOPES,
      // Claude, ChatGPT and VS Code publish client ID metadata documents; Cursor and others register.
      clientIdMetadataDocumentEnabled: true,
      // Cursor registers its cursor:// redirect URI.
      allowPrivateUseRedirectUris: true,
      accessTokenTTL: 3600,
      refreshTokenTTL: 30 * 24 * 3600,
    });
    providers.set(origin, provider);
  }
  return provider;
}

const mcp = createWorker(server, {
  authorization: oauth((env: Env) => ({
    verify: providerVerifier((resource) => providerFor(new URL(resource).origin)),
    // e.g. https://my-weather-server.<account>.workers.dev/mcp; unset under `wrangler dev` (loopback).
    resource: typeof env.MCP_RESOURCE === "string" && env.MCP_RESOURCE !== "" ? env.MCP_RESOURCE : undefined,
    scopesSupported: SCOPES,
    requiredScopes: [BASE_SCOPE],
    resourceName: "my-weather-server (OAuth example)",
  })),
});

export class McpSession extends mcp.McpSession {}
export class McpWatch extends mcp.McpWatch {}
export class McpHome extends mcp.McpHome {}
export class McpTask extends mcp.McpTask {}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    switch (url.pathname) {
      case AUTHORIZE_PATH:
        return consent(request, providerFor(url.origin).getOAuthApi(env), env);
      case TOKEN_PATH:
      case REGISTER_PATH:
      case AS_METADATA_PATH:
        return providerFor(url.origin).fetch(request, env, ctx);
      default:
        return mcp.fetch(request, env, ctx);
    }
  },
};
