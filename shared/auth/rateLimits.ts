/**
 * `rateLimits(limits)`: what a router's `rateLimits` option takes — requests counted per client
 * address (those that do not authenticate, where tokens are checked) and per user, each refused
 * with 429 and `Retry-After` past its limit (see `Gatekeeper`). The factory brings the limiter
 * and the gate that applies it, as `oauth()` does with its default limits, so a router with
 * neither ships none of them.
 *
 * Limits are given as they are, or as a function of the environment; they are checked when the
 * first request builds the router's services, and a problem with them is answered 500 with its
 * sentence on every route.
 */
import { Gatekeeper, type RateLimits } from "./Gatekeeper.ts";
import { checkRate, type RateLimiter, WindowLimiter } from "./RateLimiter.ts";
import type { ResourceServer } from "./ResourceServer.ts";
import { boundLimiter } from "./BindingLimiter.ts";

/** Rate limits for a router, made by `rateLimits()`. */
export interface RateLimitPolicy<E = Readonly<Record<string, unknown>>> {
  /** The checks for one environment, tokens (`server`) included where they are checked; undefined for none. @throws RangeError for a limit it cannot use */
  gate(env: E, server: ResourceServer | undefined): Gatekeeper | undefined;
}

/**
 * @example
 * createWorker(server, { rateLimits: rateLimits({ perAddress: { limit: 60, periodSeconds: 60 } }) })
 */
export function rateLimits<E = Readonly<Record<string, unknown>>>(limits: RateLimits | ((env: E) => RateLimits)): RateLimitPolicy<E> {
  return { gate: (env, server) => gatekeeper(typeof limits === "function" ? limits(env) : limits, server, env) };
}

/**
 * The token and rate checks for `limits`; undefined for none (no tokens checked, no address
 * limit). Each limit is counted by `env`'s rate-limiting binding where one is bound (Workers), else in this process.
 */
export function gatekeeper(limits: RateLimits, server: ResourceServer | undefined, env: unknown): Gatekeeper | undefined {
  const limiter = (name: keyof RateLimits): RateLimiter | undefined => {
    const rate = limits[name];
    if (!rate) return undefined;
    checkRate(`rateLimits.${name}`, rate);
    return boundLimiter(env, name, rate) ?? new WindowLimiter(rate);
  };
  const perAddress = limiter("perAddress");
  const perPrincipal = server ? limiter("perPrincipal") : undefined;
  if (!server && !perAddress) return undefined;
  return new Gatekeeper(server, { perAddress, perPrincipal });
}
