/**
 * `KeyValueStore` in a Map, for unit tests and for hosts without durable storage. Values are
 * structured-cloned on the way in and out, as Durable Object storage does, so code tested on it
 * cannot come to depend on sharing objects with storage.
 */
import type { KeyValueStore } from "./KeyValueStore.ts";

export class MemoryStorage implements KeyValueStore {
  readonly #map = new Map<string, unknown>();

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
}
