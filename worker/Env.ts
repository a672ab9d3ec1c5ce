/**
 * The Worker's bindings (wrangler.toml). Variables are strings; `readConfig()` parses and
 * checks them, and handlers see them as `ctx.env`.
 */
import type { SessionObject } from "../durable/SessionObject.ts";

export interface Env {
  MCP_SESSION: DurableObjectNamespace<SessionObject>;
  LOG_LEVEL?: string;
  [variable: string]: unknown;
}
