/**
 * What the Worker's 2026-07-28 path needs, built once per isolate and environment: the sealing
 * key for `requestState` and the broadcaster for `subscriptions/listen`. With `MCP_WATCH` bound,
 * changes fan out through topic Durable Objects to every isolate; without it, through memory,
 * which reaches only listeners in the same isolate (enough for `npm start`, not for a deployment).
 */
import { durableBroadcaster } from "../durable/WatchObject.ts";
import { MemoryBroadcaster } from "../shared/broadcast/MemoryBroadcaster.ts";
import { readConfig } from "../shared/config/readConfig.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { McpServer } from "../shared/server/McpServer.ts";
import type { StatelessDeps } from "../shared/stateless/handleStateless.ts";
import { RequestState } from "../shared/stateless/RequestState.ts";
import type { Env } from "./Env.ts";

/** @example const depsFor = statelessDeps(server); handleStateless(request, messages, false, depsFor(env)) */
export function statelessDeps(server: McpServer): (env: Env) => StatelessDeps {
  const built = new WeakMap<Env, StatelessDeps>();
  return (env) => {
    let deps = built.get(env);
    if (!deps) {
      const config = readConfig(env);
      const logger = new Logger(config.logLevel);
      if (env.REQUEST_STATE_SECRET === undefined) {
        logger.warn("config.request-state-secret", { message: "REQUEST_STATE_SECRET is not set: requestState is sealed with a per-isolate key, so a retry that reaches another isolate is refused" });
      }
      deps = {
        server,
        config,
        logger,
        env,
        requestState: new RequestState(env.REQUEST_STATE_SECRET, config.requestStateTtlMs),
        broadcast: env.MCP_WATCH ? durableBroadcaster(env.MCP_WATCH) : new MemoryBroadcaster(config.maxQueueBytes),
      };
      built.set(env, deps);
    }
    return deps;
  };
}
