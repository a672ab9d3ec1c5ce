/**
 * The Worker `npm run bench:stores` loads into bare workerd: the store benchmark's definition
 * (`node/storesServer.ts`) with its Durable Object classes, as `createWorker` makes them.
 */
import { createWorker } from "../../worker/createWorker.ts";
import server from "./node/storesServer.ts";

const worker = createWorker(server);

export const { McpSession, McpTask, McpHome, McpWatch } = worker;
export default { fetch: worker.fetch };
