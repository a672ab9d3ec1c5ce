/**
 * The client credentials grant (RFC 6749 §4.4, MCP's SEP-1046) for the configured service clients,
 * beside the provider, which has no such grant: `POST /token` with
 * `grant_type=client_credentials` is answered here, every other token request by the provider.
 * With `SERVICE_CLIENTS` unset nothing changes: the provider refuses the grant as ever.
 *
 * The answer is a short-lived access token (`serviceTokens.ts`) and no refresh token (§4.4.3),
 * for one resource — `resource` (RFC 8707), one of this server's two, default its `/mcp` — with
 * the requested scopes the client may have (all of them when it asks for none). Refusals are
 * RFC 6749 §5.2 JSON with `Cache-Control: no-store`: 401 `invalid_client` (plus
 * `WWW-Authenticate: Basic` where Basic was tried), 400 `unauthorized_client` for a client the
 * provider registered for sign-in by a person, `invalid_scope`, `invalid_target`, `invalid_request`.
 *
 * `clientCredentialsMetadata` adds the grant and its client authentication methods to the provider's
 * metadata document (RFC 8414 `grant_types_supported`, `token_endpoint_auth_methods_supported`,
 * `token_endpoint_auth_signing_alg_values_supported`).
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { ASSERTION_ALGORITHMS, authenticateClient } from "./authenticateClient.ts";
import { proofKeyOf } from "./proofKey.ts";
import { serviceClients } from "./serviceClients.ts";
import { ACCESS_TOKEN_TTL_S, issueServiceToken, type ServiceTokenEnv } from "./serviceTokens.ts";

/** What the grant needs of the environment: the clients, the key, and KV for assertions seen. */
export type ServiceEnv = ServiceTokenEnv & { OAUTH_KV: KVNamespace };

const GRANT_TYPE = "client_credentials";
/** The resources the example serves (as declared to the provider): the MCP endpoint first, the default. */
const RESOURCE_PATHS = ["/mcp", "/sse"];
const AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt"];
const NO_STORE = { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" };
const FORM = "application/x-www-form-urlencoded";

/**
 * The token endpoint's answer for the client credentials grant; undefined for any other request.
 * @param provider the provider's helpers, to tell its own clients from unknown ones
 */
export async function clientCredentials(request: Request, env: ServiceEnv, provider: () => OAuthHelpers): Promise<Response | undefined> {
  if (request.method !== "POST" || request.headers.get("content-type")?.split(";")[0]!.trim().toLowerCase() !== FORM) return undefined;
  const params = new URLSearchParams(await request.clone().text());
  if (params.get("grant_type") !== GRANT_TYPE) return undefined;
  const configured = serviceClients(env);
  if (!configured) return undefined;
  if (!configured.ok) {
    console.error(configured.problem);
    return refusal(500, "server_error", configured.problem);
  }
  for (const name of new Set(params.keys())) {
    if (name !== "resource" && params.getAll(name).length > 1) return refusal(400, "invalid_request", `"${name}" must not be repeated (RFC 6749 §3.2)`);
  }
  const url = new URL(request.url);
  const issuer = url.origin;
  const who = await authenticateClient(request.headers, params, configured.clients, { issuer, url: `${issuer}${url.pathname}`, kv: env.OAUTH_KV });
  if (!who.ok) {
    // A client ID metadata document's URL is not looked up: that would fetch it.
    if (who.unknownId && !/^https?:/i.test(who.unknownId) && (await provider().lookupClient(who.unknownId))) {
      return refusal(400, "unauthorized_client", "This client signs in a person; the client credentials grant is for the service clients this server is configured with");
    }
    return refusal(who.status, who.error, who.description, who.basic ? { "www-authenticate": `Basic realm="${issuer}"` } : {});
  }
  const resources = RESOURCE_PATHS.map((path) => `${issuer}${path}`);
  const asked = params.getAll("resource");
  if (asked.length > 1 || (asked.length === 1 && !resources.includes(asked[0]!))) {
    return refusal(400, "invalid_target", `resource must be one of ${resources.join(", ")}: a token is for one of them`);
  }
  const { client } = who;
  const requested = params.get("scope")?.split(" ").filter(Boolean);
  const scopes = requested ? requested.filter((scope) => client.scopes.includes(scope)) : client.scopes;
  if (scopes.length === 0) return refusal(400, "invalid_scope", `This client may be granted ${client.scopes.join(" ")}, and asked for none of them`);
  // A DPoP proof at the token endpoint (`dpopTokens.ts`) binds the token to its key, and the answer then says DPoP.
  const jkt = proofKeyOf(env);
  const accessToken = await issueServiceToken(env, { issuer, clientId: client.id, audience: asked[0] ?? resources[0]!, scopes, jkt });
  return new Response(JSON.stringify({ access_token: accessToken, token_type: jkt === undefined ? "Bearer" : "DPoP", expires_in: ACCESS_TOKEN_TTL_S, scope: scopes.join(" ") }), { headers: NO_STORE });
}

/** The provider's metadata document, naming the grant and its authentication methods when service clients are configured. */
export function clientCredentialsMetadata(metadata: Record<string, unknown>, env: ServiceEnv): Record<string, unknown> {
  if (!serviceClients(env)?.ok) return metadata;
  const union = (name: string, more: readonly string[]) => [...new Set([...((metadata[name] as string[] | undefined) ?? []), ...more])];
  return {
    ...metadata,
    grant_types_supported: union("grant_types_supported", [GRANT_TYPE]),
    token_endpoint_auth_methods_supported: union("token_endpoint_auth_methods_supported", AUTH_METHODS),
    token_endpoint_auth_signing_alg_values_supported: union("token_endpoint_auth_signing_alg_values_supported", ASSERTION_ALGORITHMS),
  };
}

function refusal(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error, error_description: description }), { status, headers: { ...NO_STORE, ...headers } });
}
