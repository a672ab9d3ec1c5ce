/**
 * `KeyValueStore` in Deno KV: what lets a restarted Deno server continue its sessions, and what
 * several Deno processes sharing one KV file keep homes in. Each store lives under a key prefix of
 * its own — a session's `["session", <id>]`, a home's `["home", <name>]` — with its keys as the
 * last part, so `deleteAll` is one prefix sweep and stores never see each other's data. Deno KV
 * refuses values over 64 KiB, so this storage declares a lower `maxValueBytes`: a larger SSE event
 * is delivered live but not stored for resumption (and logged as such), as an event over 1 MiB is
 * on Workers; a home refuses the write with a sentence saying so.
 *
 * Transactions (`atomically`) run one at a time per store within a process, and are optimistic
 * across processes: each read's versionstamp is checked at commit, and the body runs again (after
 * a short random pause) when another process changed one of them meanwhile, so two processes
 * writing one home lose no update. What a transaction lists is not checked (Deno KV checks keys,
 * not ranges, and at most a thousand of them): read a key with `get` to depend on it.
 */
import { type AtomicStore, type Transaction, WriteBuffer } from "../../shared/storage/AtomicStore.ts";
import { pauseAfterConflict } from "./pauseAfterConflict.ts";

const SESSIONS = "session";
/** The last transaction queued per store (its key prefix), in this process: the next waits for it. */
const turns = new Map<string, Promise<unknown>>();
const HOMES = "home";
/** Attempts of one transaction before it gives up: each failed one means another process wrote what it read. */
const MAX_ATTEMPTS = 16;

export class KvStorage implements AtomicStore {
  /** Deno KV's 65,536-byte value limit, less room for its own encoding of a string. */
  readonly maxValueBytes = 60_000;
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;

  /** @param where a session id (its keys go under `["session", id]`), or the key prefix of another store */
  constructor(kv: Deno.Kv, where: string | Deno.KvKey) {
    this.#kv = kv;
    this.#prefix = typeof where === "string" ? [SESSIONS, where] : where;
  }

  /** A home's store, by its name (`homeName`). */
  static home(kv: Deno.Kv, name: string): KvStorage {
    return new KvStorage(kv, [HOMES, name]);
  }

  /** Every session id with something stored: what a restarted server may continue. */
  static sessionIds(kv: Deno.Kv): Promise<string[]> {
    return names(kv, SESSIONS);
  }

  async get<T>(key: string): Promise<T | undefined> {
    const entry = await this.#kv.get<T>([...this.#prefix, key]);
    return entry.value ?? undefined;
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.#kv.set([...this.#prefix, key], value);
  }

  async delete(key: string): Promise<boolean> {
    const existed = (await this.#kv.get([...this.#prefix, key])).value !== null;
    await this.#kv.delete([...this.#prefix, key]);
    return existed;
  }

  async list<T>(prefix: string, limit = Infinity): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    for await (const { key, value } of this.#entries<T>(prefix)) {
      out.set(key, value);
      if (out.size >= limit) break;
    }
    return out;
  }

  async deleteAll(): Promise<void> {
    for await (const entry of this.#kv.list({ prefix: this.#prefix })) await this.#kv.delete(entry.key);
  }

  /**
   * In this process, one transaction of a store at a time (they would only conflict); across
   * processes, optimistic (see the module header), pausing a little longer after each conflict.
   */
  atomically<T>(body: (txn: Transaction) => Promise<T>): Promise<T> {
    const name = JSON.stringify(this.#prefix);
    const run = (turns.get(name) ?? Promise.resolve()).then(() => this.#attempt(body));
    const done = run.catch(() => {});
    turns.set(name, done);
    void done.then(() => turns.get(name) === done && turns.delete(name));
    return run;
  }

  async #attempt<T>(body: (txn: Transaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await pauseAfterConflict(attempt);
      // Each key's first read in this attempt: its value, read again from here (one state for the
      // whole body), and its versionstamp (null: absent), checked at commit.
      const seen = new Map<string, { value: unknown; versionstamp: string | null }>();
      const txn = new WriteBuffer({
        get: async <V>(key: string) => {
          let read = seen.get(key);
          if (!read) {
            const entry = await this.#kv.get<V>([...this.#prefix, key]);
            read = { value: entry.value ?? undefined, versionstamp: entry.versionstamp };
            if (!seen.has(key)) seen.set(key, read);
            read = seen.get(key)!;
          }
          return read.value === undefined ? undefined : (structuredClone(read.value) as V);
        },
        list: async <V>(prefix: string, limit = Infinity) => {
          const out = new Map<string, V>();
          for await (const { key, value } of this.#entries<V>(prefix)) {
            out.set(key, value);
            if (out.size >= limit) break;
          }
          return out;
        },
      });
      const result = await body(txn);
      const operation = this.#kv.atomic();
      for (const [key, { versionstamp }] of seen) operation.check({ key: [...this.#prefix, key], versionstamp });
      for (const [key, write] of txn.writes) {
        if (write) operation.set([...this.#prefix, key], write.value);
        else operation.delete([...this.#prefix, key]);
      }
      if ((await operation.commit()).ok) return result;
    }
    throw new Error(`Storage is busy: another process kept changing what this write read, ${MAX_ATTEMPTS} times in a row; try again`);
  }

  /** This store's entries whose key starts with `prefix`, in key order. */
  async *#entries<T>(prefix: string): AsyncIterable<{ key: string; value: T }> {
    // KV orders string key parts lexicographically, as the other storages do; the prefix is filtered here.
    for await (const entry of this.#kv.list<T>({ prefix: this.#prefix, start: [...this.#prefix, prefix] })) {
      const key = String(entry.key[this.#prefix.length]);
      if (!key.startsWith(prefix)) return;
      yield { key, value: entry.value };
    }
  }
}

async function names(kv: Deno.Kv, root: string): Promise<string[]> {
  const found = new Set<string>();
  for await (const entry of kv.list({ prefix: [root] })) found.add(String(entry.key[1]));
  return [...found];
}
