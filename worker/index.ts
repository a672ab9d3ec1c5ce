/**
 * The Worker entry that `wrangler dev` / `wrangler deploy` load (wrangler.toml `main`): the
 * example server, its session Durable Object class, and the HTTP routes. To serve your own
 * server, import its definition here instead of the example's.
 */
import server from "../example/server.ts";
import { SessionObject } from "../durable/SessionObject.ts";
import { WatchObject } from "../durable/WatchObject.ts";
import { createWorker } from "./createWorker.ts";
import type { Env } from "./Env.ts";

/** Bound as MCP_SESSION in wrangler.toml. */
export class McpSession extends SessionObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, server);
  }
}

/** Bound as MCP_WATCH in wrangler.toml: change fan-out for 2026-07-28 listeners; server-independent. */
export class McpWatch extends WatchObject {}

export default createWorker(server);
