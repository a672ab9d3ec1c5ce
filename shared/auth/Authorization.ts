/**
 * The `authorization` option of every runtime entry, as the router uses it: it makes the
 * environment's resource server, and the gate that checks its tokens when no `rateLimits` option
 * makes one. `oauth(options)` (the oauth capability) makes it and brings the code; the core holds
 * only this shape.
 */
import type { Gatekeeper } from "./Gatekeeper.ts";
import type { ResourceServer } from "./ResourceServer.ts";

/** What the router knows of a runtime for the resource server. */
export interface AuthorizationRuntime {
  /** The port the runtime serves on, where it knows it (a loopback resource is derived with it). */
  port?: () => number | undefined;
}

/** Authorization for a router, made by `oauth()`. */
export interface Authorization<E = Readonly<Record<string, unknown>>> {
  /** The resource server for one environment. @throws TypeError for options it cannot use. */
  resourceServer(env: E, runtime: AuthorizationRuntime): ResourceServer;
  /** The token checks with the default rate limits, where the router has no `rateLimits` of its own. */
  gate(server: ResourceServer, env: E): Gatekeeper;
}
