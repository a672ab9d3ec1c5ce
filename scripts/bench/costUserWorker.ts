/**
 * The second Worker of `npm run bench:cost`: the example behind authorization, its `notepad` each
 * signed-in user's own (home: "user"), for the user-state shape. Tokens are JWTs of an issuer the
 * bench makes (`JWT_ISSUER`, its key set in `JWT_KEYS`). Objects metered as in `costWorker.ts`.
 * Nothing here is safe to deploy; it exists to be measured.
 */
import { jwtVerifier } from "../../capabilities/oauth/jwtVerifier.ts";
import { oauth } from "../../capabilities/oauth/oauth.ts";
import { createWorker } from "../../worker/createWorker.ts";
import server from "../../example/oauth/server.ts";
import { meteredObjects, meterRoutes } from "./meter.ts";

const worker = createWorker(server, {
  routes: meterRoutes().map((route) => ({ ...route, public: true })),
  authorization: oauth((env: Readonly<Record<string, unknown>>) => ({
    authorizationServers: [String(env.JWT_ISSUER)],
    verify: jwtVerifier({ issuer: String(env.JWT_ISSUER), keys: JSON.parse(String(env.JWT_KEYS)) }),
  })),
});

export const { McpSession, McpTask, McpHome } = meteredObjects(worker);
export const { McpWatch } = worker;
export default { fetch: worker.fetch };
