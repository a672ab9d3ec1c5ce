/**
 * The OAuth example on Deno, every endpoint its Worker (`worker.ts`) has: the authorization server
 * (`authorizationServer.ts`: the provider and the consent page) answers its own paths first, and
 * durable-mcp the resource server everything else, each MCP request checked against its token.
 * `npm run start:oauth:deno -- --port N [--kv PATH]` runs it.
 *
 * State: the provider's clients, grants and tokens in Deno KV (`kvNamespace`, keys under
 * `["oauth"]`), in the same KV file as the sessions and homes (`--kv`, `KV_PATH`); without one, in
 * memory (with `--store postgres://…` too: the namespace has no PostgreSQL adapter). Two
 * processes on one file share them, as two isolates share a KV namespace.
 *
 * What differs from the Worker: the authorization server's paths pass the Host and Origin checks
 * that guard the MCP endpoints (on Workers it answers before them), so a browser page of another
 * origin reaches `/token` or `/register` only from `ALLOWED_ORIGINS`; the consent form, which posts
 * from this server's own origin, is allowed by adding that origin (from `MCP_RESOURCE`) to them.
 * Client ID metadata documents are off (see `deno/workersOAuthProvider.ts`). Rate limits are
 * counted in this process (or the store), as the Workers bindings do for a location.
 *
 * Deployed, set `MCP_RESOURCE` to the MCP endpoint's URL (the resource is taken from the request
 * only on a loopback host) and `CONSENT_PASSWORD`, as for the Worker.
 *
 * Run as the main module it serves; imported, `serveOAuthExample(routes)` serves it with routes of
 * the importer's own beside it (as a Worker wraps the example's `fetch`).
 */
import { oauth } from "durable-mcp";
import { type DenoServer, kvNamespace, providerVerifier, type Route, serveDeno } from "durable-mcp/deno";
import { type AuthorizationEnv, authorizationServer, configurationProblem, providerFor } from "./authorizationServer.ts";
import server, { BASE_SCOPE, SCOPES } from "./server.ts";
import { withServiceTokens } from "./serviceTokens.ts";

/** Serves the example, with `routes` of the caller's own tried before the MCP routes. */
export async function serveOAuthExample(routes: readonly Route<Record<string, string>>[] = []): Promise<DenoServer> {
  const env = Deno.env.toObject();
  const resource = env.MCP_RESOURCE || undefined;
  const own = originOf(resource);
  if (own && env.ALLOWED_ORIGINS?.trim() !== "*") env.ALLOWED_ORIGINS = [own, ...(env.ALLOWED_ORIGINS ?? "").split(",").filter((origin) => origin.trim() !== "")].join(",");

  const kvPath = flag("kv") ?? env.KV_PATH;
  const kv = await Deno.openKv(kvPath ?? ":memory:");
  /** What the authorization server reads of its environment (on Workers, the Worker's `env`). */
  const authEnv = {
    // The part of Workers KV the provider uses (`kvNamespace`); Workers' own type names the rest.
    OAUTH_KV: kvNamespace(kv, ["oauth"]) as unknown as KVNamespace,
    CONSENT_PASSWORD: env.CONSENT_PASSWORD,
    ENTERPRISE_IDP: env.ENTERPRISE_IDP,
    SERVICE_CLIENTS: env.SERVICE_CLIENTS,
    REQUEST_STATE_SECRET: env.REQUEST_STATE_SECRET,
  } satisfies AuthorizationEnv;
  /** The provider's context, in place of the Worker's: what it hands `waitUntil` runs on, and its failure is logged, not left unhandled. */
  const ctx = {
    waitUntil: (promise: Promise<unknown>) => void promise.catch((error) => console.error(JSON.stringify({ level: "error", event: "oauth.background", message: String(error) }))),
    passThroughOnException() {},
    props: {},
  } as unknown as ExecutionContext;

  // Service clients' tokens (client credentials) are JWTs of this server's own; the rest the provider's.
  const verify = withServiceTokens(providerVerifier((resource) => providerFor(new URL(resource).origin, authEnv)));

  return await serveDeno(server, {
    env,
    routes,
    before: [(request) => authorizationServer(request, authEnv, ctx)],
    // Read when the server starts, which refuses a malformed MCP_RESOURCE or ENTERPRISE_IDP with one line that says so.
    authorization: oauth(() => {
      const problem = configurationProblem(authEnv);
      if (problem !== undefined) throw new TypeError(problem);
      return {
        verify: (token, resource) => verify(token, resource, authEnv),
        resource,
        scopesSupported: SCOPES,
        requiredScopes: [BASE_SCOPE],
        resourceName: "my-weather-server (OAuth example)",
      };
    }),
  });
}

if (import.meta.main) await serveOAuthExample();

/** The origin of `url`; undefined for none or a malformed one (the resource server names that problem). */
function originOf(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Deno.args[at + 1] : undefined;
}
