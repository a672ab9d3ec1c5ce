/**
 * The OAuth example's authorization server: `@cloudflare/workers-oauth-provider` (its clients,
 * grants and tokens in the `OAUTH_KV` namespace) with the consent page (`consent.ts`). Served:
 *
 * - `/.well-known/oauth-authorization-server`, `/token` (issue, refresh, revoke) and `/register`
 *   (dynamic client registration): the provider, which also accepts client ID metadata documents
 *   (the client ID is an HTTPS URL), requires PKCE S256 and sends RFC 9207 `iss`;
 * - `/authorize`: the consent page;
 * - `POST /token` with `grant_type=client_credentials`: the configured service clients' grant
 *   (`clientCredentials.ts`), which also names itself in the metadata.
 * - with `ENTERPRISE_IDP` set, `/token` also takes ID-JAGs from the enterprise identity providers it
 *   names, with no consent page (`enterprise.ts`).
 * - DPoP-bound tokens for clients that send a proof to `/token` (`dpopTokens.ts`).
 *
 * The issuer is the origin the request came to (`https://<name>.<account>.workers.dev`, or your
 * domain), so the same code serves local development and a deployment; each origin gets its own
 * provider instance (only your own host names reach it; at most MAX_ORIGINS are kept).
 *
 * Not here: the MCP endpoints and how their tokens are checked (`worker.ts`).
 */
import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { amendJson } from "./amendJson.ts";
import { clientCredentials, clientCredentialsMetadata, type ServiceEnv } from "./clientCredentials.ts";
import { type ConsentEnv, consent } from "./consent.ts";
import { enterpriseAuthorization, enterpriseIdps } from "./enterprise.ts";
import { bindToDpopKey, dpopMetadata, dpopTokenEndpoint } from "./dpopTokens.ts";
import { SCOPES } from "./server.ts";

/** What the authorization server needs of the environment. */
export type AuthorizationEnv = ConsentEnv & ServiceEnv & { OAUTH_KV: KVNamespace; ENTERPRISE_IDP?: unknown };

const AUTHORIZE_PATH = "/authorize";
const TOKEN_PATH = "/token";
const REGISTER_PATH = "/register";
const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
const PATHS: ReadonlySet<string> = new Set([AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH, AS_METADATA_PATH]);
/** Origins remembered at once; one deployment has one or two (workers.dev and a custom domain). */
const MAX_ORIGINS = 8;

const providers = new Map<string, OAuthAuthorizationServer<AuthorizationEnv>>();

/** The authorization server whose issuer is `origin`, made on first use (configured from `env`). */
export function providerFor(origin: string, env: AuthorizationEnv): OAuthAuthorizationServer<AuthorizationEnv> {
  let provider = providers.get(origin);
  if (!provider) {
    if (providers.size >= MAX_ORIGINS) providers.delete(providers.keys().next().value!);
    provider = new OAuthAuthorizationServer<AuthorizationEnv>({
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
      enterpriseManagedAuthorization: enterpriseAuthorization(env),
      tokenExchangeCallback: (options) => bindToDpopKey(options, providerFor(origin, options.env).getOAuthApi(options.env)),
    });
    providers.set(origin, provider);
  }
  return provider;
}

/**
 * Why the authorization server cannot be made from `env` (a malformed `ENTERPRISE_IDP`), as a
 * sentence naming the variable; undefined when it can. The resource server asks too (`worker.ts`,
 * `deno.ts`), so the MCP endpoints answer with the same sentence instead of refusing every token.
 */
export function configurationProblem(env: Pick<AuthorizationEnv, "ENTERPRISE_IDP">): string | undefined {
  try {
    enterpriseIdps(env.ENTERPRISE_IDP);
    return undefined;
  } catch (error) {
    if (error instanceof TypeError) return error.message;
    throw error;
  }
}

/** The answer to a request for one of the authorization server's paths; undefined for any other path. */
export async function authorizationServer(request: Request, env: AuthorizationEnv, ctx: ExecutionContext): Promise<Response | undefined> {
  const url = new URL(request.url);
  if (!PATHS.has(url.pathname)) return undefined;
  // A configuration that cannot be read (ENTERPRISE_IDP) is the deployment's problem: say which, on every path.
  const problem = configurationProblem(env);
  if (problem !== undefined) return Response.json({ error: "server_error", error_description: problem }, { status: 500, headers: { "cache-control": "no-store" } });
  switch (url.pathname) {
    case AUTHORIZE_PATH:
      return consent(request, providerFor(url.origin, env).getOAuthApi(env), env);
    case TOKEN_PATH:
      // A proof binds whatever this endpoint issues: the provider's tokens and the service clients' alike.
      return dpopTokenEndpoint(request, env, async (withKey) => (await clientCredentials(request, withKey, () => providerFor(url.origin, env).getOAuthApi(env))) ?? providerFor(url.origin, env).fetch(request, withKey, ctx));
    case AS_METADATA_PATH:
      return amendJson(await providerFor(url.origin, env).fetch(request, env, ctx), (document) => dpopMetadata(clientCredentialsMetadata(document, env)));
    case REGISTER_PATH:
      return providerFor(url.origin, env).fetch(request, env, ctx);
    default:
      return undefined;
  }
}
