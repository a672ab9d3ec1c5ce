/**
 * The router's `Gatekeeper` when the server checks tokens or limits rates, made by `oauth()` or
 * `rateLimits()`: what stands between a request and the MCP routes, one `admit` per request,
 * before any session, object or handler is reached. In order:
 *
 * 1. The token is authenticated (`OAuthResourceServer`): 401, 403 or 400 with its challenge. A
 *    request that does not authenticate counts against its client address (and, while the
 *    limiter's table is crowded, its /24 or /48: `prefixKey`); once the address is over its limit,
 *    its requests get 429 before any check — but for a credential this server verified lately
 *    (`KnownTokens`), which is checked as ever. Without authorization configured, every request
 *    counts against its address.
 * 2. The principal's own limit counts every authenticated request: 429 past it.
 *
 * Why only unauthenticated requests count per address, and why a known token passes an address
 * over its limit: the hosted clients (Claude.ai, ChatGPT) call from their platforms' few egress
 * addresses, and each new connection starts with a request without a token (the 401 that starts
 * discovery), so an address limit on everything would throttle all of their users together. What
 * an address alone can abuse is the token check: guessing gets 429s, learns nothing, and costs no
 * verification. The price: a token never seen before (a user's first, or just
 * refreshed) waits out a limited address's window like any stranger.
 *
 * Then each batch of messages is checked against the scopes the definitions it names declare
 * (`refuseScopes`, given them by the router): 403 `insufficient_scope` naming them, before the
 * batch reaches a session.
 */
import { type Checked, passed, refused } from "../../shared/errors/Checked.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { type Caller, callerOf } from "../../shared/auth/Caller.ts";
import type { Gatekeeper } from "../../shared/auth/Gatekeeper.ts";
import { grants } from "../../shared/auth/grants.ts";
import type { ResourceServer } from "../../shared/auth/ResourceServer.ts";
import { addressKey, prefixKey } from "../../shared/shares/addressKey.ts";
import { KnownTokens } from "./KnownTokens.ts";
import type { RateLimit, RateLimiter } from "./RateLimiter.ts";

/** Which limits apply; `false` turns one off. */
export interface RateLimits {
  /** Requests that do not authenticate, per client address (every request where no authorization is configured). */
  perAddress?: RateLimit | false;
  /** Authenticated requests, per principal (issuer and subject). */
  perPrincipal?: RateLimit | false;
}

/** The limits when authorization is configured and `rateLimits` is not: generous for people, tight for guessing. */
export const DEFAULT_RATE_LIMITS: Required<RateLimits> = {
  perAddress: { limit: 120, periodSeconds: 60 },
  perPrincipal: { limit: 600, periodSeconds: 60 },
};

export class OAuthGatekeeper implements Gatekeeper {
  readonly #server: ResourceServer | undefined;
  readonly #perAddress: RateLimiter | undefined;
  readonly #perPrincipal: RateLimiter | undefined;
  readonly #known: KnownTokens;

  /** `now`: the clock of the known credentials' TTL (tests move it by hand). */
  constructor(server: ResourceServer | undefined, limiters: { perAddress?: RateLimiter; perPrincipal?: RateLimiter }, options: { now?: () => number } = {}) {
    this.#server = server;
    this.#perAddress = limiters.perAddress;
    this.#perPrincipal = limiters.perPrincipal;
    this.#known = new KnownTokens({ now: options.now });
  }

  /** The protected-resource metadata, when `request` asks for it; it is open to all. */
  metadata(request: Request): Response | undefined {
    return this.#server?.metadata(request);
  }

  /** Why requests addressed like `request` cannot be served (a token check without the `resource` this host needs); undefined when they can. */
  addressProblem(request: Request): Error | undefined {
    return this.#server?.addressProblem(request);
  }

  /**
   * The request's caller (undefined where tokens are not checked), or its refusal.
   * @param address the client's address, where the runtime knows it
   */
  async admit(request: Request, env: Readonly<Record<string, unknown>>, address: string | undefined): Promise<Checked<Caller | undefined>> {
    const limited = address !== undefined && this.#perAddress ? { limiter: this.#perAddress, key: addressKey(address), prefix: prefixKey(address) } : undefined;
    const blocked = limited?.limiter.blocked(limited.key, limited.prefix);
    const overAddress = (wait: number) => refused(tooMany("this address", this.#perAddress!.rate, wait));
    if (!this.#server) {
      const wait = blocked ?? (await limited?.limiter.hit(limited.key, limited.prefix));
      return wait === undefined ? passed(undefined) : overAddress(wait);
    }
    const credential = request.headers.get("authorization");
    // Refused before the token is checked, unless this very credential passed lately.
    if (blocked !== undefined && !(await this.#known.has(credential))) return overAddress(blocked);
    const principal = await this.#server.authenticate(request, env);
    if (!principal.ok) {
      if (blocked !== undefined) return overAddress(blocked);
      await limited?.limiter.hit(limited.key, limited.prefix);
      return principal;
    }
    // Only where addresses are limited is it worth a digest per request.
    if (limited) await this.#known.add(credential);
    const caller = await callerOf(principal.value);
    const wait = await this.#perPrincipal?.hit(caller.owner);
    if (wait !== undefined) return refused(tooMany("this user", this.#perPrincipal!.rate, wait));
    return passed(caller);
  }

  /**
   * The 403 for a request whose caller's token lacks some of `needed` (the scopes of the tools,
   * prompts or resources it names); undefined when it may go on. The challenge names the scopes
   * needed together with those already granted, so a client that asks again for exactly these
   * loses nothing (step-up).
   */
  refuseScopes(request: Request, needed: readonly string[], caller: Caller | undefined): McpError | undefined {
    if (!this.#server || !caller || grants(caller.auth, needed)) return undefined;
    return this.#server.insufficientScope(request, needed, caller.auth.scopes);
  }
}

function tooMany(whose: string, rate: RateLimit, waitSeconds: number): McpError {
  return new McpError(
    429,
    ErrorCode.ServerBusy,
    `Too many requests from ${whose}: the limit is ${rate.limit} per ${rate.periodSeconds} s; retry after ${waitSeconds} s`,
    { limit: rate.limit, periodSeconds: rate.periodSeconds, retryAfterSeconds: waitSeconds },
    { "retry-after": String(waitSeconds), "ratelimit-policy": `${rate.limit};w=${rate.periodSeconds}` },
  );
}
