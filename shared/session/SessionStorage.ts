/**
 * The storage a session sees: a small async key-value map, values structured-cloneable.
 * Durable Object storage implements it on Workers (`durable/durableStorage.ts`); `MemoryStorage`
 * implements it in process.
 *
 * Not a database: no transactions across keys, no queries beyond a key prefix.
 */
export interface SessionStorage {
  /** The largest value the backend stores, in bytes of UTF-8 text, if it has a limit below the session's own (Deno KV: 64 KiB). */
  readonly maxValueBytes?: number;
  get<T = unknown>(key: string): Promise<T | undefined>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Entries whose key starts with `prefix`, in key order, at most `limit`. */
  list<T = unknown>(prefix: string, limit?: number): Promise<Map<string, T>>;
  /** Removes every key: the session is gone. */
  deleteAll(): Promise<void>;
}

/**
 * A view of `storage` under `prefix`, so handler data can never overwrite the session record.
 *
 * @example scoped(storage, "data:").put("note:1", "hi") // stored as "data:note:1"
 */
export function scoped(storage: SessionStorage, prefix: string): Omit<SessionStorage, "deleteAll"> {
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
