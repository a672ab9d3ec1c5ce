/** The Worker entry serving the conformance fixture: the real routes and session Durable Object. */
import { createWorker, homeObject, watchObject } from "durable-mcp/cloudflare";
import fixture from "./fixtureServer.ts";

const { fetch, McpSession, McpTask } = createWorker(fixture);
export { McpSession, McpTask };
export const McpWatch = watchObject();
export const McpHome = homeObject(fixture);
export default { fetch };
