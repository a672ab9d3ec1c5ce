/** The Worker entry serving the conformance fixture: the real routes and session Durable Object. */
import { createWorker, homeObject, taskObject } from "durable-mcp/cloudflare";
import fixture from "./fixtureServer.ts";

const { fetch, McpSession, McpWatch } = createWorker(fixture);
export { McpSession, McpWatch };
export const McpHome = homeObject(fixture);
export const McpTask = taskObject(fixture);
export default { fetch };
