/**
 * `durable-mcp/deno`: serving a server definition on Deno — over HTTP with every endpoint the
 * Worker has (sessions in this process, in memory or Deno KV), or over stdin/stdout.
 *
 * @example
 * import { serveDeno } from "durable-mcp/deno";
 * import server from "./server.ts";
 * await serveDeno(server); // --port N, --kv PATH from the command line
 */
export { type DenoServer, serveDeno, type ServeDenoOptions } from "./serveDeno.ts";
export { serveDenoStdio } from "./serveDenoStdio.ts";
export type { BeforeStage, Route } from "../shared/routes/createRouter.ts";
export { kvStore } from "./kvStore.ts";
// An authorization server in the process (`@cloudflare/workers-oauth-provider`): its KV namespace over Deno KV, and its tokens checked.
export { kvNamespace, type KvNamespace } from "../capabilities/oauth/deno/kvNamespace.ts";
export { providerVerifier, type ProviderVerifierOptions, type TokenValidator, type ValidatedToken } from "../capabilities/oauth/providerVerifier.ts";
export { postgresStore, type PostgresStoreOptions } from "../node/postgresStore.ts";
export { memoryStore, type Store } from "../shared/runtime/Store.ts";
