/**
 * A client assertion (`private_key_jwt`) is accepted once: its `jti` is remembered until the
 * assertion expires, and a second use is refused (RFC 7523 §3 item 7; SEP-1046 asks for it).
 *
 * - Owner: the client. Address: `OAUTH_KV`, `service-assertion-jti:<client_id>:<SHA-256 of the jti>`.
 * - Lifetime: the assertion's `exp` plus the clock skew, and at least KV's minimum expiration.
 * - Limit: a marker is written only for an assertion that verified with the client's own key and
 *   expires within MAX_ASSERTION_LIFETIME_S, so no one else can add one and each is gone within
 *   that time plus the skew; a client holds as many as it signs in that window.
 *
 * Not strict across locations: KV is eventually consistent, so a replay sent to another location
 * before the marker reaches it (up to about a minute) can pass. Within one isolate a replay racing
 * its original is caught (`inFlight`). Where that window matters, keep the markers in a Durable
 * Object instead.
 */

/** The longest an assertion may still be valid when it arrives: a client signs one per request. */
export const MAX_ASSERTION_LIFETIME_S = 300;
/** Clock skew tolerated on an assertion's `exp`, `nbf` and `iat`. */
export const ASSERTION_CLOCK_TOLERANCE_S = 60;
/** KV refuses an expiration sooner than this. */
const KV_MIN_TTL_S = 60;
const PREFIX = "service-assertion-jti:";

/** The markers being written by this isolate; each is removed once its write ends. */
const inFlight = new Set<string>();

/**
 * True the first time (the marker is written), false for a replay.
 * @param exp the assertion's `exp`, epoch seconds, already checked to be at most MAX_ASSERTION_LIFETIME_S away
 */
export async function firstUse(kv: KVNamespace, clientId: string, jti: string, exp: number, nowS = Math.floor(Date.now() / 1000)): Promise<boolean> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(jti)));
  const key = `${PREFIX}${clientId}:${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  if (inFlight.has(key)) return false;
  inFlight.add(key);
  try {
    if ((await kv.get(key)) !== null) return false;
    await kv.put(key, "1", { expirationTtl: Math.max(KV_MIN_TTL_S, exp + ASSERTION_CLOCK_TOLERANCE_S - nowS) });
    return true;
  } finally {
    inFlight.delete(key);
  }
}
