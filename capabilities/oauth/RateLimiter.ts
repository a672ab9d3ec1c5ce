/**
 * Rate limits in front of the MCP endpoints: how many requests one key (a client address, a
 * principal) may make per window. A limiter counts and answers; the router decides what counts
 * (`OAuthGatekeeper`) and answers 429 with the limit, the window and `Retry-After`.
 *
 * Two implementations behind one interface:
 * - `WindowLimiter`, in process (Deno, Node, or a Worker without a binding): fixed windows per
 *   key, exact within one process;
 * - on Workers, the platform's rate-limiting binding (`BindingLimiter`), shared by the isolates of
 *   a location, and so the one that holds against a client spread over many of them.
 *
 * Every key a client can make the limiter hold is bounded (`MAX_TRACKED_KEYS`), and a full table
 * is no way to wipe the counts of others (by filling it from the many addresses of one prefix):
 * - from `CROWDED_SHARE` of the bound on, an address the table does not hold yet is counted under
 *   its prefix (`prefixKey`: IPv4 /24, IPv6 /48), so a flood from one prefix takes one window and is
 *   limited as one client — the cost, only while crowded, falls on new addresses sharing a prefix
 *   with the flood;
 * - room is made from ended windows first, then from the oldest window still under its limit
 *   (its client starts afresh: no worse than a restart); a window at its limit is never forgotten
 *   to make room — while every window held is limited, a newcomer is refused (429) until the
 *   first of them ends.
 * Windows under their limit are kept in the order they started and every window is as long as
 * every other, so the oldest is also the first to end: each eviction is one step.
 */

/** A limit as configured: `limit` requests per `periodSeconds`. */
export interface RateLimit {
  limit: number;
  /** The window, in seconds. The Workers binding counts per 10 or 60 seconds only. */
  periodSeconds: number;
}

export interface RateLimiter {
  readonly rate: RateLimit;
  /**
   * Counts one request for `key`: the seconds to wait when it is over the limit, else undefined.
   * `prefix`: the wider key `key` belongs to (an address's `prefixKey`), counted instead of a key
   * not held yet while the table is crowded.
   */
  hit(key: string, prefix?: string): Promise<number | undefined>;
  /** The seconds `key` (or its `prefix`) must still wait, without counting a request (undefined: it may go on). */
  blocked(key: string, prefix?: string): number | undefined;
}

/** The most keys one limiter remembers at once (a window is about 100 bytes: a few MiB at most). */
export const MAX_TRACKED_KEYS = 20_000;
/** The share of `maxKeys` from which the table is crowded: a key not held yet is counted under its prefix. */
export const CROWDED_SHARE = 0.75;
/**
 * The least time, in ms, between two sweeps of the limited windows for ended ones (the first one
 * held is checked on every miss; the rest only by a sweep): a table full of limited windows costs
 * at most one pass over it per second.
 */
const SWEEP_INTERVAL_MS = 1_000;

interface Window {
  count: number;
  /** Epoch ms. */
  endsAt: number;
}

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
  /** Windows under their limit, in the order they started: the first is the first to end. */
  readonly #counting = new Map<string, Window>();
  /** Windows at their limit, in the order they reached it: forgotten only once they end. */
  readonly #limited = new Map<string, Window>();
  readonly #maxKeys: number;
  readonly #crowdedAt: number;
  readonly #now: () => number;
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(rate: RateLimit, options: { maxKeys?: number; now?: () => number } = {}) {
    this.rate = checkRate("A rate limit", rate);
    this.#maxKeys = options.maxKeys ?? MAX_TRACKED_KEYS;
    if (!Number.isSafeInteger(this.#maxKeys) || this.#maxKeys < 1) throw new TypeError(`maxKeys must be a whole number of at least 1, got ${this.#maxKeys}`);
    this.#crowdedAt = Math.ceil(this.#maxKeys * CROWDED_SHARE);
    this.#now = options.now ?? Date.now;
  }

  /** Keys remembered now (for tests and the benchmark). */
  get size(): number {
    return this.#counting.size + this.#limited.size;
  }

  async hit(key: string, prefix?: string): Promise<number | undefined> {
    const now = this.#now();
    const own = this.#live(key, now);
    const shared = prefix === undefined || own ? undefined : this.#live(prefix, now);
    // A key held keeps its own window; a new one goes under its prefix while crowded, or while the prefix has a window already.
    const target = prefix === undefined || own || (!shared && this.size < this.#crowdedAt) ? key : prefix;
    let window = own ?? shared;
    if (!window) {
      if (!this.#makeRoom(now)) return this.#fullWait(now);
      window = { count: 0, endsAt: now + this.rate.periodSeconds * 1000 };
      this.#counting.set(target, window);
    }
    window.count++;
    if (window.count >= this.rate.limit && this.#counting.delete(target)) this.#limited.set(target, window);
    if (window.count > this.rate.limit) return secondsUntil(window.endsAt, now);
    return prefix === undefined || target === prefix ? undefined : this.#waitOf(prefix, now);
  }

  blocked(key: string, prefix?: string): number | undefined {
    const now = this.#now();
    const wait = this.#waitOf(key, now) ?? (prefix === undefined ? undefined : this.#waitOf(prefix, now));
    if (wait !== undefined) return wait;
    // A newcomer to a table full of limited windows: `hit` could not count it, so it waits too.
    const held = this.#live(key, now) ?? (prefix === undefined ? undefined : this.#live(prefix, now));
    return held || !this.#full(now) ? undefined : this.#fullWait(now);
  }

  /** The window of `key`, if one is held and has not ended (an ended one is forgotten). */
  #live(key: string, now: number): Window | undefined {
    const window = this.#counting.get(key) ?? this.#limited.get(key);
    if (!window || window.endsAt > now) return window;
    this.#counting.delete(key);
    this.#limited.delete(key);
    return undefined;
  }

  #waitOf(key: string, now: number): number | undefined {
    const window = this.#limited.get(key);
    return window && window.endsAt > now ? secondsUntil(window.endsAt, now) : undefined;
  }

  /** Whether every window held is limited and the table is at its bound (an ended first one does not count). */
  #full(now: number): boolean {
    if (this.size < this.#maxKeys || this.#counting.size > 0) return false;
    return this.#limited.values().next().value!.endsAt > now;
  }

  /** When a newcomer to a full table may come back: when the first limited window held ends. */
  #fullWait(now: number): number {
    const first = this.#limited.values().next().value;
    return first ? secondsUntil(first.endsAt, now) : this.rate.periodSeconds;
  }

  /** Room for one more window: false when every window held is limited and none has ended. */
  #makeRoom(now: number): boolean {
    if (this.size < this.#maxKeys) return true;
    dropEnded(this.#counting, now);
    dropEnded(this.#limited, now);
    if (this.size < this.#maxKeys) return true;
    const oldest = this.#counting.keys().next();
    if (!oldest.done) return this.#counting.delete(oldest.value);
    if (now - this.#sweptAt < SWEEP_INTERVAL_MS) return false;
    this.#sweptAt = now;
    for (const [key, window] of this.#limited) if (window.endsAt <= now) this.#limited.delete(key);
    return this.size < this.#maxKeys;
  }
}

/** Forgets the ended windows at the front of a table kept in the order its windows started or were limited. */
export function dropEnded(table: Map<string, { endsAt: number } | number>, now: number): void {
  for (const [key, window] of table) {
    if ((typeof window === "number" ? window : window.endsAt) > now) return;
    table.delete(key);
  }
}

/** Whole seconds from `now` to `endsAt`, at least 1: what `Retry-After` says. */
export function secondsUntil(endsAt: number, now: number): number {
  return Math.max(1, Math.ceil((endsAt - now) / 1000));
}
