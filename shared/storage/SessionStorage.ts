/**
 * A session's storage, as everything of the session uses it (its record, its handlers'
 * `ctx.storage`, its stored events): a `KeyValueStore` that can be wiped for good. `wipe()` is
 * how a session ends (expired, deleted): from that moment every write is refused, writes already
 * under way are waited for, and then every key is deleted (on Workers the alarm too). So nothing
 * a handler still running writes afterwards can survive, whatever order the backend applies
 * writes in (Deno KV does not order a set against a concurrent list).
 *
 * Reads go on working after a wipe (they find nothing); a refused write rejects with a sentence
 * saying why, which a handler sees as an ordinary error.
 */
import type { KeyValueStore } from "./KeyValueStore.ts";

export class SessionStorage implements KeyValueStore {
  readonly #backend: KeyValueStore;
  readonly #writing = new Set<Promise<unknown>>();
  #wiped = false;

  constructor(backend: KeyValueStore) {
    this.#backend = backend;
  }

  get maxValueBytes(): number | undefined {
    return this.#backend.maxValueBytes;
  }

  get wiped(): boolean {
    return this.#wiped;
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.#backend.get<T>(key);
  }

  list<T>(prefix: string, limit?: number): Promise<Map<string, T>> {
    return this.#backend.list<T>(prefix, limit);
  }

  put(key: string, value: unknown): Promise<void> {
    return this.#write(() => this.#backend.put(key, value));
  }

  delete(key: string): Promise<boolean> {
    return this.#write(() => this.#backend.delete(key));
  }

  /** Same as `wipe()`: the interface's name for it. */
  deleteAll(): Promise<void> {
    return this.wipe();
  }

  /** Refuses every write from now on, waits for those under way, then deletes every key. Idempotent. */
  async wipe(): Promise<void> {
    this.#wiped = true;
    await Promise.allSettled([...this.#writing]);
    await this.#backend.deleteAll();
  }

  #write<T>(write: () => Promise<T>): Promise<T> {
    if (this.#wiped) return Promise.reject(new Error("This session has ended: nothing more is stored for it"));
    const pending = write();
    this.#writing.add(pending);
    const forget = () => this.#writing.delete(pending);
    pending.then(forget, forget);
    return pending;
  }
}
