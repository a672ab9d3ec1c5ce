/**
 * The example server on Cloudflare Workers: the Worker entry wrangler.toml names (`main`). This
 * is all a Worker entry is — a server definition handed to `createWorker`, and the Durable
 * Object classes wrangler.toml binds exported under their names.
 */
import { createWorker } from "durable-mcp/cloudflare";
import server from "./server.ts";

const worker = createWorker(server);
// Classes, not consts: `wrangler types` refers to each bound class's type by its exported name.
export class McpSession extends worker.McpSession {}
export class McpWatch extends worker.McpWatch {}
export class McpHome extends worker.McpHome {}
export class McpTask extends worker.McpTask {}
export default { fetch: worker.fetch };
