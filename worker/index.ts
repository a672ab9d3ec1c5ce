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
 * lists or resources can change also exports the watch class (`export class McpWatch extends
 * watchObject() {}`), one with tools that run as tasks the task class (`export class McpTask
 * extends taskObject(server) {}`), and one with homes the home class (`export class McpHome
 * extends homeObject(server) {}`). The Durable Object classes themselves are not exported: these
 * calls make them, bound to the definition.
 */
export { createWorker, type McpWorker, type WorkerEnv } from "./createWorker.ts";
export type { BeforeStage, Route, RouterOptions } from "../shared/routes/createRouter.ts";
export { taskObject } from "./taskObject.ts";
export { watchObject } from "./watchObject.ts";
export { homeObject } from "./homeObject.ts";
export { providerVerifier, type ProviderVerifierOptions, type TokenValidator, type ValidatedToken } from "./providerVerifier.ts";
