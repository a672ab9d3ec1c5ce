/**
 * The longest delay a JavaScript timer can hold, and a helper to arm a timer for a deadline that
 * may lie beyond it. `setTimeout` stores its delay as a signed 32-bit integer: any delay above
 * 2^31 − 1 ms overflows and the timer fires at once (HTML "timer initialisation steps", and
 * Node/Deno do the same; Node warns with TimeoutOverflowWarning and uses 1 ms).
 *
 * Not a scheduler: this module arms nothing. A host that needs a later deadline arms a timer for
 * `delayFor(deadline)`, and when it fires re-checks the deadline and re-arms if it is not yet due.
 * Durable Object alarms take an epoch time in ms and have no such limit.
 */

/**
 * Largest delay, in ms, that `setTimeout` honours: 2_147_483_647 ms ≈ 24.8 days. A larger delay
 * overflows the 32-bit field and fires immediately, so every configured timer duration is
 * refused above it at startup (`readConfig`).
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The delay to pass to `setTimeout` for a deadline at epoch ms `atMs`: the time remaining,
 * at least 0 and at most `MAX_TIMER_MS`. When the deadline is further away than one timer can
 * reach, the timer fires early; the caller then sees the deadline is not due and arms again.
 *
 * @example setTimeout(check, delayFor(lastActivity + sessionIdleTtlMs)) // check() re-arms if early
 */
export function delayFor(atMs: number, now: number = Date.now()): number {
  return Math.min(Math.max(0, atMs - now), MAX_TIMER_MS);
}
