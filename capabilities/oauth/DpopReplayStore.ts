/**
 * The `jti`s of the DPoP proofs this server accepted, each kept until its proof could no longer be
 * accepted anyway (RFC 9449 §11.1: a proof is used once). Bounded per principal and in total; an
 * entry is freed when its window ends, never sooner — dropping one early would let its proof be
 * replayed. So a principal (or the server) at its bound gets a refusal with the seconds until the
 * oldest entry frees, not an eviction.
 *
 * Entries leave in the order they came: each is kept for the same lifetime from the moment it was
 * recorded (the proof's longest possible life), so the oldest is always first in the map.
 *
 * The store is memory of one process, or on Workers of one isolate: a proof replayed to another
 * isolate (another location, or the same one once it scales out) is not seen there, within its
 * short window. Closing that takes one store per principal shared by every isolate — a Durable
 * Object keyed by the principal, consulted on each DPoP request — at the cost of a round trip.
 *
 * Not here: the proof itself (`checkDpopProof`).
 */
import { PROOF_LIFETIME_MS } from "./checkDpopProof.ts";

/**
 * Proofs remembered per principal: more than the default per-principal rate limit (600 a minute)
 * lets through in one proof lifetime (two minutes), so a user within that limit is never refused
 * for want of room; a user whose limit is raised past 750 a minute is.
 */
export const MAX_PROOFS_PER_PRINCIPAL = 1_500;
/**
 * Proofs remembered in all: about 400 bytes each at most (the principal and a `jti` of up to 128
 * characters), so under 20 MiB; over two minutes, about 400 DPoP requests a second for the process.
 */
export const MAX_PROOFS_TOTAL = 50_000;

export type ReplayCheck = { ok: true } | { ok: false; replayed: true } | { ok: false; replayed: false; whose: "principal" | "server"; retryAfterSeconds: number };

export interface ReplayStoreOptions {
  /** How long each `jti` is kept, in ms: the longest a proof stays acceptable. Default: `checkDpopProof`'s window, two minutes. */
  lifetimeMs?: number;
  maxPerPrincipal?: number;
  maxTotal?: number;
  /** The clock, in ms since the epoch (tests move it by hand). */
  now?: () => number;
}

export class DpopReplayStore {
  /** `[principal, jti]` as JSON → whose it is and when it may be forgotten (ms), in the order recorded. */
  readonly #entries = new Map<string, { principal: string; until: number }>();
  readonly #perPrincipal = new Map<string, number>();
  readonly #lifetimeMs: number;
  readonly #maxPerPrincipal: number;
  readonly #maxTotal: number;
  readonly #now: () => number;

  constructor(options: ReplayStoreOptions = {}) {
    this.#lifetimeMs = options.lifetimeMs ?? PROOF_LIFETIME_MS;
    this.#maxPerPrincipal = options.maxPerPrincipal ?? MAX_PROOFS_PER_PRINCIPAL;
    this.#maxTotal = options.maxTotal ?? MAX_PROOFS_TOTAL;
    this.#now = options.now ?? Date.now;
  }

  /** The number of proofs remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Records `jti` for `principal`, unless it was seen in its window, or a bound is reached. */
  use(principal: string, jti: string): ReplayCheck {
    const now = this.#now();
    this.#sweep(now);
    const key = JSON.stringify([principal, jti]);
    if (this.#entries.has(key)) return { ok: false, replayed: true };
    const count = this.#perPrincipal.get(principal) ?? 0;
    if (count >= this.#maxPerPrincipal) return { ok: false, replayed: false, whose: "principal", retryAfterSeconds: this.#waitFor(now, principal) };
    if (this.#entries.size >= this.#maxTotal) return { ok: false, replayed: false, whose: "server", retryAfterSeconds: this.#waitFor(now) };
    this.#entries.set(key, { principal, until: now + this.#lifetimeMs });
    this.#perPrincipal.set(principal, count + 1);
    return { ok: true };
  }

  /** Forgets every entry whose window has ended: they lead the map. */
  #sweep(now: number): void {
    for (const [key, { principal, until }] of this.#entries) {
      if (until > now) return;
      this.#entries.delete(key);
      const left = this.#perPrincipal.get(principal)! - 1;
      if (left === 0) this.#perPrincipal.delete(principal);
      else this.#perPrincipal.set(principal, left);
    }
  }

  /** Seconds until the oldest entry (of `principal`, or of all) is forgotten. */
  #waitFor(now: number, principal?: string): number {
    for (const entry of this.#entries.values()) {
      const { until } = entry;
      if (principal === undefined || entry.principal === principal) return Math.max(1, Math.ceil((until - now) / 1000));
    }
    return 1;
  }
}
