// The runtime tests' `env` (from "cloudflare:test") carries the Worker's bindings.
import type { Env as WorkerEnv } from "../../worker/Env.ts";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
