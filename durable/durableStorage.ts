/**
 * `KeyValueStore` over Durable Object storage (the SQLite-backed key-value API). `deleteAll` also
 * deletes the alarm, which `storage.deleteAll()` leaves in place: an ended session, task or home
 * must not wake up again. `atomicStorage` adds transactions (`storage.transaction()`, whose writes
 * apply together or not at all), for homes only: the other objects need none, and do not ship them.
 */
import type { KeyValueStore } from "../shared/storage/KeyValueStore.ts";
import { type AtomicStore, WriteBuffer } from "../shared/storage/AtomicStore.ts";

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

export function atomicStorage(storage: DurableObjectStorage): AtomicStore {
  return {
    ...durableStorage(storage),
    atomically: (body) =>
      storage.transaction(async (txn) => {
        const buffer = new WriteBuffer({ get: (key) => txn.get(key), list: (prefix, limit) => txn.list(limit === undefined ? { prefix } : { prefix, limit }) });
        const result = await body(buffer);
        for (const [key, write] of buffer.writes) {
          if (write) await txn.put(key, write.value);
          else await txn.delete(key);
        }
        return result;
      }),
  };
}
