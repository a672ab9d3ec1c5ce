/** The Worker entry serving the conformance fixture: the real routes and session Durable Object. */
import { createWorker } from "durable-mcp/cloudflare";
import fixture from "./fixtureServer.ts";

const { fetch, McpSession, McpTask, McpWatch, McpHome } = createWorker(fixture);
export { McpSession, McpTask, McpWatch, McpHome };
export default { fetch };
