/**
 * When each home in a process's keeping is next due to wake (its retention, a holding's lapse):
 * one index of (time, home name), which `LocalHomes` scans with one timer, in place of a timer per
 * home. In memory here; in Deno KV, `capabilities/homes/deno/KvHomeExpiries.ts`, where a restarted process reads only
 * what is due. Setting a home's time replaces the one before.
 *
 * Not here: what a due home does (`HomeHost.wake`), or the timer (`LocalHomes`).
 */
export interface HomeExpiries {
  set(name: string, atMs: number): Promise<void>;
  clear(name: string): Promise<void>;
  /** Names due at `nowMs`, at most `limit` of them, earliest first. */
  due(nowMs: number, limit: number): Promise<string[]>;
  /** The earliest time set, if any. */
  next(): Promise<number | undefined>;
  /** The time set for `name`, if any: a home arms its wakeup only where none is armed (as a Durable Object's alarm). */
  at(name: string): Promise<number | undefined>;
  /** Makes the index whole before its first use, at a process's start (a KV file written before it existed). */
  prepare?(nowMs: number): Promise<void>;
}

/** The index in a Map: for homes that live in memory too, so it holds no more entries than homes. */
export class MemoryHomeExpiries implements HomeExpiries {
  readonly #at = new Map<string, number>();

  async set(name: string, atMs: number): Promise<void> {
    this.#at.set(name, atMs);
  }

  async clear(name: string): Promise<void> {
    this.#at.delete(name);
  }

  async due(nowMs: number, limit: number): Promise<string[]> {
    const due = [...this.#at].filter(([, at]) => at <= nowMs).sort((a, b) => a[1] - b[1]);
    return due.slice(0, limit).map(([name]) => name);
  }

  async at(name: string): Promise<number | undefined> {
    return this.#at.get(name);
  }

  async next(): Promise<number | undefined> {
    let next: number | undefined;
    for (const at of this.#at.values()) if (next === undefined || at < next) next = at;
    return next;
  }

  get size(): number {
    return this.#at.size;
  }
}
