/**
 * The example server behind OAuth 2.1, as one Worker: the authorization server
 * (`authorizationServer.ts`: `@cloudflare/workers-oauth-provider` and the consent page) and
 * durable-mcp the resource server in front of the MCP endpoints. Served here:
 *
 * - `/.well-known/oauth-protected-resource/mcp` (and at the root): which authorization server
 *   issues tokens for `<origin>/mcp` — durable-mcp;
 * - the authorization server's paths (`/authorize`, `/token`, `/register`, its metadata);
 * - everything else: the MCP endpoints of every era, each request checked against its token.
 *
 * The resource server takes its resource from the request only on a loopback host
 * (`wrangler dev`): deployed, set `MCP_RESOURCE` (wrangler.toml `[vars]`) to the MCP endpoint's
 * URL, or every MCP request is answered 500 with the sentence that says so.
 */
import { oauth } from "durable-mcp";
import { createWorker, providerVerifier, type WorkerEnv } from "durable-mcp/cloudflare";
import { type AuthorizationEnv, authorizationServer, configurationProblem, providerFor } from "./authorizationServer.ts";
import server, { BASE_SCOPE, SCOPES } from "./server.ts";
import { withServiceTokens } from "./serviceTokens.ts";

type Env = WorkerEnv & AuthorizationEnv;

const mcp = createWorker(server, {
  authorization: oauth((env: Env) => {
    // A configuration the authorization server cannot read: every route answers 500 with its sentence.
    const problem = configurationProblem(env);
    if (problem !== undefined) throw new TypeError(problem);
    return {
      // Service clients' tokens (client credentials) are JWTs of this Worker's own; the rest the provider's.
      verify: withServiceTokens(providerVerifier((resource) => providerFor(new URL(resource).origin, env))),
      // e.g. https://my-weather-server.<account>.workers.dev/mcp; unset under `wrangler dev` (loopback).
      resource: typeof env.MCP_RESOURCE === "string" && env.MCP_RESOURCE !== "" ? env.MCP_RESOURCE : undefined,
      scopesSupported: SCOPES,
      requiredScopes: [BASE_SCOPE],
      resourceName: "my-weather-server (OAuth example)",
    };
  }),
});

export class McpSession extends mcp.McpSession {}
export class McpWatch extends mcp.McpWatch {}
export class McpHome extends mcp.McpHome {}
export class McpTask extends mcp.McpTask {}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return (await authorizationServer(request, env, ctx)) ?? mcp.fetch(request, env, ctx);
  },
};
