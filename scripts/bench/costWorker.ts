/**
 * The Worker `npm run bench:cost` loads into bare workerd: the example server exactly as
 * deployed, with its session, task and home objects metered the way Cloudflare bills one
 * (`meter.ts`). Its home objects here are the notebooks' handles and each client's fair shares.
 * Nothing here is safe to deploy; it exists to be measured.
 */
import { createWorker } from "../../worker/createWorker.ts";
import server from "../../example/server.ts";
import { meteredObjects, meterRoutes } from "./meter.ts";

const worker = createWorker(server, { routes: meterRoutes() });

export const { McpSession, McpTask, McpHome } = meteredObjects(worker);
export const { McpWatch } = worker;
export default { fetch: worker.fetch };
