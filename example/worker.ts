/**
 * The example server on Cloudflare Workers: the Worker entry wrangler.toml names (`main`). This
 * is all a Worker entry is — a server definition handed to `createWorker`, and the Durable
 * Object classes wrangler.toml binds exported under their names.
 */
import { createWorker, homeObject, taskObject } from "durable-mcp/cloudflare";
import server from "./server.ts";

const { fetch, McpSession, McpWatch } = createWorker(server);
export { McpSession, McpWatch };
export const McpHome = homeObject(server);
export const McpTask = taskObject(server);
export default { fetch };
