/**
 * A `KeyValueStore` that can apply several reads and writes as one: what a home's bounded storage
 * is built on (`capabilities/homes/BoundedStorage.ts`), so that its byte and key counts, its record and the
 * handler's values change together, and two writers of one home — two requests in a Durable
 * Object, or two Deno processes sharing one KV file — cannot lose each other's update.
 *
 * - Durable Objects: `storage.transaction()` (`durable/durableStorage.ts`).
 * - Deno KV: optimistic — the body's reads are checked by versionstamp at commit, and the body
 *   runs again if another process wrote one of them meanwhile (`deno/kv/KvStorage.ts`).
 * - Memory: one transaction at a time (`MemoryStorage`).
 *
 * Not here: range locks. A `list` inside a transaction reads the current keys, but a key another
 * writer adds to the range meanwhile is not a conflict on Deno KV.
 */
import type { KeyValueStore } from "./KeyValueStore.ts";

/** What a transaction's body reads and writes through. Writes are buffered until the body resolves; its reads see them. */
export interface Transaction {
  get<T = unknown>(key: string): Promise<T | undefined>;
  list<T = unknown>(prefix: string, limit?: number): Promise<Map<string, T>>;
  put(key: string, value: unknown): void;
  delete(key: string): void;
}

export interface AtomicStore extends KeyValueStore {
  /**
   * Runs `body` against one consistent state of the store; its writes apply together once it
   * resolves, or not at all if it rejects. `body` may run more than once (an optimistic store
   * retries after a conflict), so it must have no side effects beyond the transaction.
   */
  atomically<T>(body: (txn: Transaction) => Promise<T>): Promise<T>;
}

/** The buffered writes of one transaction over the store's reads: every implementation's `Transaction`. */
export class WriteBuffer implements Transaction {
  /** key → the value to write, or undefined to delete. In the order written. */
  readonly writes = new Map<string, { value: unknown } | undefined>();
  readonly #read: Pick<KeyValueStore, "get" | "list">;

  constructor(read: Pick<KeyValueStore, "get" | "list">) {
    this.#read = read;
  }

  async get<T>(key: string): Promise<T | undefined> {
    if (!this.writes.has(key)) return this.#read.get<T>(key);
    const write = this.writes.get(key);
    return write ? (structuredClone(write.value) as T) : undefined;
  }

  async list<T>(prefix: string, limit?: number): Promise<Map<string, T>> {
    // Read past the limit by as many keys as this transaction wrote: some may be deleted here.
    const stored = await this.#read.list<T>(prefix, limit === undefined ? undefined : limit + this.writes.size);
    for (const [key, write] of this.writes) {
      if (!key.startsWith(prefix)) continue;
      if (write) stored.set(key, structuredClone(write.value) as T);
      else stored.delete(key);
    }
    const keys = [...stored.keys()].sort().slice(0, limit);
    return new Map(keys.map((key) => [key, stored.get(key)!]));
  }

  put(key: string, value: unknown): void {
    this.writes.set(key, { value: structuredClone(value) });
  }

  delete(key: string): void {
    this.writes.set(key, undefined);
  }
}
