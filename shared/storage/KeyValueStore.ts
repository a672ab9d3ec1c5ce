/**
 * The storage a session (and its handlers, through `ctx.storage`) sees: a small async key-value
 * map, values structured-cloneable. Durable Object storage implements it on Workers
 * (`durable/durableStorage.ts`), Deno KV on Deno (`deno/kv/KvStorage.ts`), `MemoryStorage` in process.
 *
 * Not a database: no transactions across keys, no queries beyond a key prefix.
 */
export interface KeyValueStore {
  /** The largest value the backend stores, in bytes, if it has a limit below the session's own (Deno KV: 64 KiB). */
  readonly maxValueBytes?: number;
  get<T = unknown>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Entries whose key starts with `prefix`, in key order, at most `limit`. */
  list<T = unknown>(prefix: string, limit?: number): Promise<Map<string, T>>;
  /** Removes every key: the session is gone. */
  deleteAll(): Promise<void>;
}

/** What a handler may do with its session's storage: everything but wiping it. */
export type HandlerStorage = Omit<KeyValueStore, "deleteAll" | "maxValueBytes">;

/**
 * A view of `storage` under `prefix`, so handler data can never overwrite the session record.
 *
 * @example scoped(storage, "data:").put("note:1", "hi") // stored as "data:note:1"
 */
export function scoped(storage: KeyValueStore, prefix: string): HandlerStorage {
  return {
    get: (key) => storage.get(prefix + key),
    put: (key, value) => storage.put(prefix + key, value),
    delete: (key) => storage.delete(prefix + key),
    async list(p, limit) {
      const out = new Map();
      for (const [k, v] of await storage.list(prefix + p, limit)) out.set(k.slice(prefix.length), v);
      return out;
    },
  };
}
