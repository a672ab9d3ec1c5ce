/**
 * `KeyValueStore` in a Map, for unit tests and for hosts without durable storage. Values are
 * structured-cloned on the way in and out, as Durable Object storage does, so code tested on it
 * cannot come to depend on sharing objects with storage. Transactions (`atomically`) run one at
 * a time; a plain `put` does not wait for them, so a store written through transactions should
 * be written only through them (as a home's is).
 */
import { type AtomicStore, type Transaction, WriteBuffer } from "./AtomicStore.ts";

export class MemoryStorage implements AtomicStore {
  readonly #map = new Map<string, unknown>();
  /** The last transaction queued: the next one starts when it ends. */
  #turn: Promise<unknown> = Promise.resolve();

  async get<T>(key: string): Promise<T | undefined> {
    return structuredClone(this.#map.get(key)) as T | undefined;
  }
  async put(key: string, value: unknown): Promise<void> {
    this.#map.set(key, structuredClone(value));
  }
  async delete(key: string): Promise<boolean> {
    return this.#map.delete(key);
  }
  async list<T>(prefix: string, limit = Infinity): Promise<Map<string, T>> {
    const keys = [...this.#map.keys()].filter((k) => k.startsWith(prefix)).sort().slice(0, limit);
    return new Map(keys.map((k) => [k, structuredClone(this.#map.get(k)) as T]));
  }
  async deleteAll(): Promise<void> {
    this.#map.clear();
  }

  /** Keys stored now: none means nothing to keep. */
  get size(): number {
    return this.#map.size;
  }

  atomically<T>(body: (txn: Transaction) => Promise<T>): Promise<T> {
    const run = this.#turn.then(async () => {
      const txn = new WriteBuffer(this);
      const result = await body(txn);
      for (const [key, write] of txn.writes) {
        if (write) this.#map.set(key, write.value);
        else this.#map.delete(key);
      }
      return result;
    });
    this.#turn = run.catch(() => {});
    return run;
  }
}
