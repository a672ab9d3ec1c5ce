/**
 * The Worker the home runtime tests load into workerd (the `runtime-homes` project): `homeServer`
 * behind authorization, since a user's home needs a signed-in user. Tokens are real JWTs, checked
 * by `jwtVerifier` (jose) against the key set the test made and handed over with `useKeys` — the
 * test and this Worker share one isolate, as the runtime tests and their objects do.
 */
import type { JSONWebKeySet } from "jose";
import { jwtVerifier, oauth } from "durable-mcp";
import { createWorker } from "durable-mcp/cloudflare";
import { homeServer } from "./homeServer.ts";

export const ISSUER = "https://issuer.home-test";
/**
 * The MCP endpoint as clients name it, the audience of their tokens: the tests reach the Worker at
 * http://durable-mcp.test, as a Worker behind TLS ended in front sees its requests, and a server
 * off loopback must be told its resource.
 */
export const RESOURCE_ORIGIN = "https://durable-mcp.test";
let keys: JSONWebKeySet | undefined;

/** The key set tokens are checked against from now on. */
export function useKeys(jwks: JSONWebKeySet): void {
  keys = jwks;
}

/** The Worker: its `fetch` and object classes are exported below; the tests call its `deleteUserData`. */
export const worker = createWorker(homeServer, {
  authorization: oauth({
    authorizationServers: [ISSUER],
    resource: `${RESOURCE_ORIGIN}/mcp`,
    verify: (token, resource, env) => {
      if (!keys) throw new Error("The test has not handed over its keys (useKeys)");
      return jwtVerifier({ issuer: ISSUER, keys })(token, resource, env);
    },
  }),
});
export const { fetch, McpSession, McpTask, McpWatch, McpHome } = worker;
export default { fetch };
