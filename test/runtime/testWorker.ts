/**
 * The Worker the runtime tests load into workerd: the real Worker routes and session Durable
 * Object (`createWorker`, as a user's entry has them) serving `testServer.ts`. Same class names
 * and bindings as wrangler.toml, so the production configuration is what is under test. The e2e
 * tests also bundle it.
 */
import { createWorker } from "durable-mcp/cloudflare";
import { testServer } from "./testServer.ts";

export { testServer };

const { fetch, McpSession, McpTask, McpWatch, McpHome } = createWorker(testServer);
export { McpSession, McpTask, McpWatch, McpHome };
export default { fetch };
