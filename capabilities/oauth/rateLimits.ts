/**
 * `rateLimits(limits)`: what a router's `rateLimits` option takes — requests counted per client
 * address (those that do not authenticate, where tokens are checked) and per user, each refused
 * with 429 and `Retry-After` past its limit (see `OAuthGatekeeper`). The factory brings the limiter
 * and the gate that applies it, as `oauth()` does with its default limits, so a router with
 * neither ships none of them.
 *
 * Limits are given as they are, or as a function of the environment; they are checked when the
 * first request builds the router's services, and a problem with them is answered 500 with its
 * sentence on every route.
 */
import type { Gatekeeper } from "../../shared/auth/Gatekeeper.ts";
import type { RateLimitPolicy } from "../../shared/auth/RateLimitPolicy.ts";
import type { ResourceServer } from "../../shared/auth/ResourceServer.ts";
import { boundLimiter } from "./BindingLimiter.ts";
import { OAuthGatekeeper, type RateLimits } from "./OAuthGatekeeper.ts";
import { checkRate, type RateLimiter, WindowLimiter } from "./RateLimiter.ts";

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
  return new OAuthGatekeeper(server, { perAddress, perPrincipal });
}
