/**
 * `durable-mcp/cloudflare`: serving a server definition from a Cloudflare Worker, one Durable
 * Object per session. The few lines of a Worker entry:
 *
 * @example
 * import { createWorker } from "durable-mcp/cloudflare";
 * import server from "./server.ts";
 *
 * const worker = createWorker(server);
 * export class McpSession extends worker.McpSession {}
 * export default { fetch: worker.fetch };
 *
 * Classes, not consts: the `Env` that `wrangler types` generates names their types. A server whose
 * lists or resources can change lists `watch()` in its `use` and exports the watch class
 * (`export class McpWatch extends worker.McpWatch {}`), one that lists `tasks()` the task class
 * (`export class McpTask extends worker.McpTask {}`), and one that lists `homes()` the home class
 * (`export class McpHome extends worker.McpHome {}`). The Durable Object classes themselves are
 * not exported: `createWorker` makes them, bound to the definition.
 */
export { createWorker, type McpWorker, type WorkerEnv } from "./createWorker.ts";
export type { BeforeStage, Route, RouterOptions } from "../shared/routes/createRouter.ts";
export { providerVerifier, type ProviderVerifierOptions, type TokenValidator, type ValidatedToken } from "../capabilities/oauth/durable/providerVerifier.ts";
// DPoP at the token endpoint of an authorization server in the same Worker: the resource server's own proof check and replay store.
export { checkDpopProof } from "../capabilities/oauth/checkDpopProof.ts";
export { DpopReplayStore } from "../capabilities/oauth/DpopReplayStore.ts";
