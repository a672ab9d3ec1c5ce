/**
 * A Deno KV handle that waits out another process's lock. Several processes on one KV file (a
 * local SQLite database) take turns writing it, and one that finds it busy is refused with
 * "database is locked" instead of waiting; so each operation here is tried again, a few times with
 * a growing pause, while that is the answer. A refused commit changed nothing, so trying it again
 * is safe; a listing is read whole before it is handed on, so that a retry never repeats an entry.
 *
 * Not here: conflicts between processes' transactions, which a commit's checks refuse as a
 * value (`{ ok: false }`) and the caller retries (`KvStorage.atomically`).
 */

/** Tries of one operation before the lock's error is let through: under a second of pauses in all (10 ms more each time). */
const MAX_TRIES = 12;

/** The operations this project uses, waiting out a lock; the rest of `Deno.Kv` is not offered. */
export function lockTolerant(kv: Deno.Kv): Deno.Kv {
  const tolerant = {
    get: (key: Deno.KvKey) => patiently(() => kv.get(key)),
    getMany: (keys: readonly Deno.KvKey[]) => patiently(() => kv.getMany(keys)),
    set: (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) => patiently(() => kv.set(key, value, options)),
    delete: (key: Deno.KvKey) => patiently(() => kv.delete(key)),
    list: (selector: Parameters<Deno.Kv["list"]>[0], options?: Parameters<Deno.Kv["list"]>[1]) =>
      (async function* () {
        yield* await patiently(async () => {
          const entries = [];
          for await (const entry of kv.list(selector, options)) entries.push(entry);
          return entries;
        });
      })(),
    atomic: () => {
      const operation = kv.atomic();
      const wrapped = {
        check: (...checks: Parameters<Deno.AtomicOperation["check"]>) => (operation.check(...checks), wrapped),
        set: (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) => (operation.set(key, value, options), wrapped),
        delete: (key: Deno.KvKey) => (operation.delete(key), wrapped),
        commit: () => patiently(() => operation.commit()),
      };
      return wrapped;
    },
    watch: (keys: readonly Deno.KvKey[]) => kv.watch(keys),
    close: () => kv.close(),
  };
  return tolerant as unknown as Deno.Kv;
}

async function patiently<T>(operation: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await operation();
    } catch (error) {
      if (tries >= MAX_TRIES || !String(error).includes("database is locked")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * tries + Math.random() * 10));
    }
  }
}
