/**
 * The `Runtime` of one Workers environment, built from its bindings once per isolate and `env`:
 * the config and logger from its variables, and what the definition's capabilities bring there
 * (`WorkersPart`: fan-out through `MCP_WATCH`, tasks in `MCP_TASK`, homes and fair shares in
 * `MCP_HOME`), each undefined where its capability is not in `use` or its binding is missing.
 * The Worker's routes, the session objects and the task objects build theirs with it; telemetry's exports outlive
 * the request that ended their spans, so the isolate stays for them (`waitUntil`).
 *
 * `broadcast` is undefined without `watch()`: the Worker then fans out within its isolate, and a
 * session object's changes reach no listener.
 */
import { waitUntil } from "cloudflare:workers";
import { readConfig } from "../shared/config/readConfig.ts";
import type { ServerEnv } from "../shared/definition/RequestContext.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { Runtime } from "../shared/runtime/Runtime.ts";
import type { CompiledServer } from "../shared/server/CompiledServer.ts";
import { workersPart } from "./WorkersPart.ts";

export type WorkersRuntime = Omit<Runtime, "broadcast"> & Partial<Pick<Runtime, "broadcast">>;

/** @throws a variable that cannot be used (`readConfig`) */
export function workersRuntime(server: CompiledServer, env: ServerEnv, part = workersPart(server)): WorkersRuntime {
  const config = readConfig(env);
  const logger = new Logger(config.logLevel);
  return {
    server,
    config,
    logger,
    env,
    broadcast: part.broadcaster?.(env, config.maxQueueBytes),
    homes: part.homes?.(env, server),
    shares: part.shares?.(env),
    telemetry: server.telemetryFor(env, logger, waitUntil),
    tasks: server.hasTasks ? part.tasks?.(env, config.maxQueueBytes) : undefined,
  };
}
