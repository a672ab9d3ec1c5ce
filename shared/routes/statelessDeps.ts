/**
 * What the 2026-07-28 path needs, built once per environment (per isolate on Workers, once per
 * process elsewhere): the sealing key for `requestState`, and the runtime's broadcaster for
 * `subscriptions/listen`.
 */
import { readConfig } from "../config/readConfig.ts";
import type { Runtime } from "../host/Runtime.ts";
import { Logger } from "../log/Logger.ts";
import type { McpServer } from "../server/McpServer.ts";
import type { StatelessDeps } from "../stateless/handleStateless.ts";
import { RequestState, requestStateSecret } from "../stateless/RequestState.ts";

type Env = Readonly<Record<string, unknown>>;

/** @example const depsFor = statelessDeps(server, runtime); handleStateless(request, messages, false, depsFor(env)) */
export function statelessDeps<E extends Env>(server: McpServer, runtime: Runtime<E>): (env: E) => StatelessDeps {
  const built = new WeakMap<E, StatelessDeps>();
  return (env) => {
    let deps = built.get(env);
    if (!deps) {
      const config = readConfig(env);
      const logger = new Logger(config.logLevel);
      const secret = requestStateSecret(env);
      if (secret === undefined) {
        logger.warn("config.request-state-secret", { message: "REQUEST_STATE_SECRET is not set: requestState is sealed with a per-isolate key, so a retry that reaches another isolate is refused" });
      }
      deps = {
        server,
        config,
        logger,
        env,
        requestState: new RequestState(secret, config.requestStateTtlMs),
        broadcast: runtime.broadcaster(env),
      };
      built.set(env, deps);
    }
    return deps;
  };
}
