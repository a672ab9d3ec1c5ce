/**
 * The second Worker of `npm run bench:cost`: the example behind authorization, its `notepad` each
 * signed-in user's own (home: "user"), for the user-state shape. Tokens are JWTs of an issuer the
 * bench makes (`JWT_ISSUER`, its key set in `JWT_KEYS`). Objects metered as in `costWorker.ts`.
 * Nothing here is safe to deploy; it exists to be measured.
 */
import { jwtVerifier } from "../../shared/auth/jwtVerifier.ts";
import { createWorker } from "../../worker/createWorker.ts";
import { homeObject } from "../../worker/homeObject.ts";
import { taskObject } from "../../worker/taskObject.ts";
import server from "../../example/oauth/server.ts";
import { metered, meterRoutes } from "./meter.ts";

const { fetch, McpSession: Session, McpWatch } = createWorker(server, {
  routes: meterRoutes().map((route) => ({ ...route, public: true })),
  authorization: (env) => ({
    authorizationServers: [String(env.JWT_ISSUER)],
    verify: jwtVerifier({ issuer: String(env.JWT_ISSUER), keys: JSON.parse(String(env.JWT_KEYS)) }),
  }),
});

export const McpSession = metered(Session, "session", ["apply"]);
export const McpTask = metered(taskObject(server), "task", ["create", "get", "update", "cancel", "erase"]);
export const McpHome = metered(homeObject(server), "home", ["run", "abort", "erase", "acquireShare", "releaseShare"]);
export { McpWatch };
export default { fetch };
