/**
 * `KeyValueStore` over Durable Object storage (the SQLite-backed key-value API). `deleteAll`
 * also deletes the alarm, which `storage.deleteAll()` leaves in place: an ended session must not
 * wake up again.
 */
import type { KeyValueStore } from "../shared/storage/KeyValueStore.ts";

export function durableStorage(storage: DurableObjectStorage): KeyValueStore {
  return {
    get: (key) => storage.get(key),
    put: (key, value) => storage.put(key, value),
    delete: (key) => storage.delete(key),
    list: (prefix, limit) => storage.list(limit === undefined ? { prefix } : { prefix, limit }),
    async deleteAll() {
      await storage.deleteAlarm();
      await storage.deleteAll();
    },
  };
}
