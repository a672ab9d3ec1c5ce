// The runtime tests' `env` (from "cloudflare:test") carries the Worker's bindings.
import type { WorkerEnv } from "durable-mcp/cloudflare";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
