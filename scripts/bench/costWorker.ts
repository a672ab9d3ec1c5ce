/**
 * The Worker `npm run bench:cost` loads into bare workerd: the example server exactly as
 * deployed, with its session, task and home objects metered the way Cloudflare bills one
 * (`meter.ts`). Its home objects here are the notebooks' handles and each client's fair shares.
 * Nothing here is safe to deploy; it exists to be measured.
 */
import { createWorker } from "../../worker/createWorker.ts";
import { homeObject } from "../../worker/homeObject.ts";
import { taskObject } from "../../worker/taskObject.ts";
import server from "../../example/server.ts";
import { metered, meterRoutes } from "./meter.ts";

const { fetch, McpSession: Session, McpWatch } = createWorker(server, { routes: meterRoutes() });

export const McpSession = metered(Session, "session", ["apply"]);
export const McpTask = metered(taskObject(server), "task", ["create", "get", "update", "cancel", "erase"]);
export const McpHome = metered(homeObject(server), "home", ["run", "abort", "erase", "acquireShare", "releaseShare"]);
export { McpWatch };
export default { fetch };
