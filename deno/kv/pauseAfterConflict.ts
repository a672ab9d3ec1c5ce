/**
 * The pause before an optimistic Deno KV change tries again, after a commit refused because
 * another process (or another change in this one) wrote what it read: none before the first try,
 * then a few random milliseconds, growing with each try up to about 100 ms, so that the writers
 * that collided do not collide again in step.
 */
export function pauseAfterConflict(attempt: number): Promise<void> {
  if (attempt <= 1) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * Math.min(attempt, 20)));
}
