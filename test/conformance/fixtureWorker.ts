/** The Worker entry serving the conformance fixture: the real routes and session Durable Object. */
import { SessionObject } from "../../durable/SessionObject.ts";
import { WatchObject } from "../../durable/WatchObject.ts";
import { createWorker } from "../../worker/createWorker.ts";
import type { Env } from "../../worker/Env.ts";
import fixture from "./fixtureServer.ts";

export class McpSession extends SessionObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, fixture);
  }
}

export class McpWatch extends WatchObject {}

export default createWorker(fixture);
