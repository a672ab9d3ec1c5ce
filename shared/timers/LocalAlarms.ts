/**
 * One alarm per key, as a Durable Object has one: what the in-process hosts (`LocalSessions`,
 * `LocalTasks`) give their session or task in place of the platform's alarm. Setting a key's
 * alarm replaces the one before. A deadline beyond one timer's reach (`MAX_TIMER_MS`, 24.8 days)
 * is reached by arming again when the timer fires early, so `fire` never runs before its time.
 */
import { delayFor } from "../config/timerLimits.ts";

export class LocalAlarms {
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();

  /** Arms `key`'s alarm for epoch time `atMs`, replacing any; `fire` runs once it is due. */
  set(key: string, atMs: number, fire: () => void): void {
    this.clear(key);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      if (Date.now() < atMs) return this.set(key, atMs, fire);
      fire();
    }, delayFor(atMs));
    this.#timers.set(key, timer);
  }

  clear(key: string): void {
    clearTimeout(this.#timers.get(key));
    this.#timers.delete(key);
  }

  /** Disarms every alarm: for a clean process exit or the end of a test. */
  clearAll(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Alarms armed now. */
  get size(): number {
    return this.#timers.size;
  }
}
