/**
 * The server on Cloudflare Workers (wrangler.toml's `main`): the definition handed to
 * createWorker, and the Durable Object classes wrangler.toml binds, exported under those names.
 */
import { createWorker } from "durable-mcp/cloudflare";
import server from "./server.ts";

const worker = createWorker(server);
// Classes, not consts: wrangler binds them by these names, and `wrangler types` refers to their types.
// One object per session of a 2025 or HTTP+SSE client: its streams, queue and storage.
export class McpSession extends worker.McpSession {}
// One object per watched topic: carries a change (listChanged, resources, tools declared with
// `enabled`) to every isolate. These tools need none yet; bound from the start, adding one needs
// no new migration.
export class McpWatch extends worker.McpWatch {}
export default { fetch: worker.fetch };
