/**
 * Rate limits in front of the MCP endpoints: how many requests one key (a client address, a
 * principal) may make per window. A limiter counts and answers; the router decides what counts
 * (`Gatekeeper`) and answers 429 with the limit, the window and `Retry-After`.
 *
 * Two implementations behind one interface:
 * - `WindowLimiter`, in process (Deno, Node, or a Worker without a binding): fixed windows per
 *   key, exact within one process;
 * - on Workers, the platform's rate-limiting binding (`worker/bindingLimiter.ts`), shared by the
 *   isolates of a location, and so the one that holds against a client spread over many of them.
 *
 * Every key a client can make the limiter hold is bounded (`MAX_TRACKED_KEYS`): past it, the
 * oldest window is forgotten (its client starts a fresh one — the cost of a bounded table, and no
 * worse than a restart). A renewed window moves to the end of the table and every window is as
 * long as every other, so the oldest is also the first to expire: expired windows go first, and
 * each eviction is one step, however full the table.
 */

/** A limit as configured: `limit` requests per `periodSeconds`. */
export interface RateLimit {
  limit: number;
  /** The window, in seconds. The Workers binding counts per 10 or 60 seconds only. */
  periodSeconds: number;
}

export interface RateLimiter {
  readonly rate: RateLimit;
  /** Counts one request for `key`: the seconds to wait when it is over the limit, else undefined. */
  hit(key: string): Promise<number | undefined>;
  /** The seconds `key` must still wait, without counting a request (undefined: it may go on). */
  blocked(key: string): number | undefined;
}

/** The most keys one limiter remembers at once (a window is about 100 bytes: a few MiB at most). */
export const MAX_TRACKED_KEYS = 20_000;

/** @throws TypeError for a limit that is not a positive whole number of requests per positive whole number of seconds. */
export function checkRate(what: string, rate: RateLimit): RateLimit {
  if (!Number.isSafeInteger(rate.limit) || rate.limit < 1 || !Number.isSafeInteger(rate.periodSeconds) || rate.periodSeconds < 1) {
    throw new TypeError(`${what} must be { limit, periodSeconds } with whole numbers of at least 1, got ${JSON.stringify(rate)}`);
  }
  return rate;
}

/** Fixed windows per key, in this process. */
export class WindowLimiter implements RateLimiter {
  readonly rate: RateLimit;
  readonly #windows = new Map<string, { count: number; endsAt: number }>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(rate: RateLimit, options: { maxKeys?: number; now?: () => number } = {}) {
    this.rate = checkRate("A rate limit", rate);
    this.#maxKeys = options.maxKeys ?? MAX_TRACKED_KEYS;
    if (!Number.isSafeInteger(this.#maxKeys) || this.#maxKeys < 1) throw new TypeError(`maxKeys must be a whole number of at least 1, got ${this.#maxKeys}`);
    this.#now = options.now ?? Date.now;
  }

  /** Keys remembered now (for tests and the benchmark). */
  get size(): number {
    return this.#windows.size;
  }

  async hit(key: string): Promise<number | undefined> {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      this.#windows.delete(key);
      forgetOldest(this.#windows, this.#maxKeys);
      window = { count: 0, endsAt: now + this.rate.periodSeconds * 1000 };
      this.#windows.set(key, window);
    }
    window.count++;
    return window.count > this.rate.limit ? secondsUntil(window.endsAt, now) : undefined;
  }

  blocked(key: string): number | undefined {
    const window = this.#windows.get(key);
    const now = this.#now();
    if (!window || window.endsAt <= now || window.count < this.rate.limit) return undefined;
    return secondsUntil(window.endsAt, now);
  }

}

/** Makes room for one more key in a table kept in insertion order: forgets the oldest until it holds fewer than `maxKeys`. */
export function forgetOldest(table: Map<string, unknown>, maxKeys: number): void {
  while (table.size >= maxKeys) table.delete(table.keys().next().value!);
}

/** Whole seconds from `now` to `endsAt`, at least 1: what `Retry-After` says. */
export function secondsUntil(endsAt: number, now: number): number {
  return Math.max(1, Math.ceil((endsAt - now) / 1000));
}

/**
 * The key a client address is counted under: an IPv4 address as it is (also when a dual-stack
 * server reports it IPv4-mapped, `::ffff:a.b.c.d`), an IPv6 address by its /64 prefix (one
 * subscriber's network: a client holding a /64 could otherwise take a fresh address for each
 * request).
 */
export function addressKey(address: string): string {
  if (!address.includes(":")) return address;
  const mapped = /^\[?::ffff:(\d{1,3}(?:\.\d{1,3}){3})\]?$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = address.replace(/^\[|\]$/g, "").split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.replace(/^0+(?=.)/, "") || "0").toLowerCase())
    .join(":")}::/64`;
}
