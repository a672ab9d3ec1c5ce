/**
 * The Worker's bindings (wrangler.toml). Variables are strings; `readConfig()` parses and
 * checks them, and handlers see them as `ctx.env`.
 */
import type { SessionObject } from "../durable/SessionObject.ts";
import type { WatchObject } from "../durable/WatchObject.ts";

export interface Env {
  MCP_SESSION: DurableObjectNamespace<SessionObject>;
  /** Change fan-out across isolates (2026-07-28 `subscriptions/listen`); without it, within one isolate only. */
  MCP_WATCH?: DurableObjectNamespace<WatchObject>;
  /** Seals 2026-07-28 `requestState`; at least 32 characters. Set with `wrangler secret put`. */
  REQUEST_STATE_SECRET?: string;
  LOG_LEVEL?: string;
  [variable: string]: unknown;
}
