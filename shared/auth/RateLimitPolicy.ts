/**
 * The `rateLimits` option of every runtime entry, as the router uses it: it makes the gate for one
 * environment, the token checks of `authorization` included where there are some.
 * `rateLimits(limits)` (the oauth capability) makes it and brings the limiter; the core holds
 * only this shape.
 */
import type { Gatekeeper } from "./Gatekeeper.ts";
import type { ResourceServer } from "./ResourceServer.ts";

/** Rate limits for a router, made by `rateLimits()`. */
export interface RateLimitPolicy<E = Readonly<Record<string, unknown>>> {
  /** The checks for one environment, tokens (`server`) included where they are checked; undefined for none. @throws TypeError for a limit it cannot use */
  gate(env: E, server: ResourceServer | undefined): Gatekeeper | undefined;
}
