/**
 * The bearer credentials this server has verified lately, by digest: what lets `OAuthGatekeeper`
 * refuse a rate-limited address before verifying its token (verification costs CPU) and still let
 * a user of a shared egress address (Claude.ai, ChatGPT) through, whose token it has seen pass.
 * Knowing a credential only lets it be checked: it is verified again on every request (expiry,
 * revocation), never trusted from here.
 *
 * Kept: the base64url SHA-256 of the `Authorization` header's value, never the token; until
 * `KNOWN_TOKEN_TTL_MS` after its last success; at most `MAX_KNOWN_TOKENS`, the least recently
 * verified forgotten first (its user then waits out the address's limit like a stranger).
 *
 * Not here: counting (the limiters), verifying (`OAuthResourceServer`).
 */
import { sha256 } from "../../shared/bytes/base64url.ts";

/** Credentials remembered at once (an entry is about 150 bytes: 3 MiB at most). */
export const MAX_KNOWN_TOKENS = 20_000;
/** How long after its last successful check a credential stays known, in ms. */
export const KNOWN_TOKEN_TTL_MS = 60 * 60_000;

export class KnownTokens {
  /** digest → epoch ms when it is forgotten, in the order of the last success (the first ends first). */
  readonly #known = new Map<string, number>();
  readonly #maxTokens: number;
  readonly #now: () => number;

  constructor(options: { maxTokens?: number; now?: () => number } = {}) {
    this.#maxTokens = options.maxTokens ?? MAX_KNOWN_TOKENS;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#known.size;
  }

  /** Whether `credential` (the `Authorization` header's value) passed a check within the TTL. */
  async has(credential: string | null): Promise<boolean> {
    if (credential === null) return false;
    const digest = await sha256(credential);
    const until = this.#known.get(digest);
    if (until === undefined) return false;
    if (until > this.#now()) return true;
    this.#known.delete(digest);
    return false;
  }

  /** Records that `credential` passed a check now. */
  async add(credential: string | null): Promise<void> {
    if (credential === null) return;
    const digest = await sha256(credential);
    this.#known.delete(digest);
    while (this.#known.size >= this.#maxTokens) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(digest, this.#now() + KNOWN_TOKEN_TTL_MS);
  }
}
