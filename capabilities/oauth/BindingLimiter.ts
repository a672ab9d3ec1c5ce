/**
 * A rate limit counted by the Workers rate-limiting binding (`[[ratelimits]]` in wrangler.toml):
 * one count per key for all the isolates of a Cloudflare location, where an in-process window
 * would count per isolate. Found in the environment by name (`RATE_LIMIT_BINDINGS`) when
 * `rateLimits()` or `oauth()` builds its gate, so it comes with those factories, and a Worker
 * without rate limits ships none of it; elsewhere (Deno's variables are strings) no binding is
 * found and the limit is counted in the process (`WindowLimiter`). The binding only says whether a request is over; it keeps its own
 * limit and period (wrangler.toml's `simple = { limit, period }`), so the figures given here
 * must match them — they are what the 429 tells the client.
 *
 * `blocked` needs an answer without a count (`OAuthGatekeeper` asks it before verifying a token),
 * which the binding does not give: a key the binding refused is remembered here until its period
 * has passed, in a bounded table that, like `WindowLimiter`'s, never forgets a refused key to make
 * room: while it is full, a newly refused key is not remembered (the binding refuses it again on
 * its next request, after its token has been checked). Prefixes are the binding's business: its
 * counts live with Cloudflare, not in this isolate.
 */
import { dropEnded, MAX_TRACKED_KEYS, type RateLimit, type RateLimiter, secondsUntil } from "./RateLimiter.ts";
import type { RateLimits } from "./OAuthGatekeeper.ts";

/** The binding's interface (workers-types `RateLimit`). */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** The binding names looked for, per limit. */
export const RATE_LIMIT_BINDINGS = { perAddress: "MCP_RATE_LIMIT_ADDRESS", perPrincipal: "MCP_RATE_LIMIT_PRINCIPAL" } as const;

/** The limiter of `env`'s binding for the limit `name`, or undefined where none is bound. */
export function boundLimiter(env: unknown, name: keyof RateLimits, rate: RateLimit): RateLimiter | undefined {
  const binding = (env as Record<string, RateLimitBinding | undefined> | undefined)?.[RATE_LIMIT_BINDINGS[name]];
  return typeof binding?.limit === "function" ? new BindingLimiter(binding, rate) : undefined;
}

export class BindingLimiter implements RateLimiter {
  readonly rate: RateLimit;
  readonly #binding: RateLimitBinding;
  /** Keys the binding refused, until when (epoch ms). */
  readonly #refused = new Map<string, number>();

  constructor(binding: RateLimitBinding, rate: RateLimit) {
    this.#binding = binding;
    this.rate = rate;
  }

  async hit(key: string): Promise<number | undefined> {
    const { success } = await this.#binding.limit({ key });
    if (success) return undefined;
    const now = Date.now();
    this.#remember(key, now + this.rate.periodSeconds * 1000);
    return this.rate.periodSeconds;
  }

  blocked(key: string): number | undefined {
    const until = this.#refused.get(key);
    if (until === undefined) return undefined;
    const now = Date.now();
    if (until > now) return secondsUntil(until, now);
    this.#refused.delete(key);
    return undefined;
  }

  /** Bounded; every entry is as long as every other, so the oldest is the first to end. */
  #remember(key: string, until: number): void {
    this.#refused.delete(key);
    if (this.#refused.size >= MAX_TRACKED_KEYS) dropEnded(this.#refused, until - this.rate.periodSeconds * 1000);
    if (this.#refused.size < MAX_TRACKED_KEYS) this.#refused.set(key, until);
  }
}
