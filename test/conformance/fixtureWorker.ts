/** The Worker entry serving the conformance fixture: the real routes and session Durable Object. */
import { createWorker, homeObject, taskObject, watchObject } from "durable-mcp/cloudflare";
import fixture from "./fixtureServer.ts";

const { fetch, McpSession } = createWorker(fixture);
export { McpSession };
export const McpWatch = watchObject();
export const McpHome = homeObject(fixture);
export const McpTask = taskObject(fixture);
export default { fetch };
