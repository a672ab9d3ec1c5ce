/**
 * The Worker the runtime tests load into workerd: the real Worker routes and session Durable
 * Object serving `testServer.ts`. Same class names and bindings as wrangler.toml, so the
 * production configuration is what is under test. The e2e tests also bundle it.
 */
import { SessionObject } from "../../durable/SessionObject.ts";
import { WatchObject } from "../../durable/WatchObject.ts";
import { createWorker } from "../../worker/createWorker.ts";
import type { Env } from "../../worker/Env.ts";
import { testServer } from "./testServer.ts";

export { testServer };

export class McpSession extends SessionObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, testServer);
  }
}

export class McpWatch extends WatchObject {}

export default createWorker(testServer);
