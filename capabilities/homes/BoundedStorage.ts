/**
 * A home's `ctx.storage`: its handlers' keys under `data:`, bounded per home — at most
 * MAX_HOME_KEYS keys and MAX_HOME_BYTES bytes (as `storedSize` counts them), each value at most
 * `MAX_HOME_VALUE_BYTES` (or what its backend takes, 60,000 on Deno KV), each key at most
 * `MAX_HOME_KEY_CHARS`. A write past a bound rejects with a sentence naming the bound, which a tool
 * handler's caller sees as a tool error the model can act on.
 *
 * Every write is a transaction over the home's `AtomicStore` that also rewrites its record (the
 * counts, `usedAt`), so what the record says is what is stored, on every runtime; the first write
 * creates the record (`fresh()`), which makes the home exist (`HomeRecord.ts`). A home that must
 * be admitted before it exists (a new handle, counted in its client's share) is: the transaction
 * that would create it is rolled back, `admit()` asked (rejecting with its refusal), and the body
 * run again — as an optimistic store may run it again anyway.
 */
import { storedSize } from "../../shared/bytes/storedSize.ts";
import type { HandlerStorage } from "../../shared/storage/KeyValueStore.ts";
import type { HomeStorage, SqlDatabase } from "../../shared/definition/RequestContext.ts";
import type { AtomicStore, Transaction } from "../../shared/storage/AtomicStore.ts";
import { DATA_PREFIX, type HomeRecord, RECORD_KEY } from "./HomeRecord.ts";

/** The largest value one key of a home holds: 1 MiB, as a task's values. */
export const MAX_HOME_VALUE_BYTES = 1_048_576;
/** The longest key a handler may use, in UTF-16 units: both backends take 2 KiB keys, with room for the prefix. */
export const MAX_HOME_KEY_CHARS = 512;

/** What a transaction that would create a home not yet admitted answers in place of committing. */
const NOT_ADMITTED = Symbol("not admitted");

export interface HomeLimits {
  maxBytes: number;
  maxKeys: number;
}

export class BoundedStorage implements HomeStorage {
  readonly sql?: SqlDatabase;
  readonly #store: AtomicStore;
  readonly #limits: HomeLimits;
  readonly #fresh: () => HomeRecord;
  readonly #committed: (record: HomeRecord, created: boolean) => void | Promise<void>;
  readonly #maxValueBytes: number;
  #admit: (() => Promise<void>) | undefined;

  /**
   * @param fresh the record of a home that has none yet (its kind and owner, now)
   * @param committed told of each committed write, with the record it left and whether it created the home
   * @param admit asked once before the first write that would create the home; rejects to refuse it
   */
  constructor(
    store: AtomicStore,
    limits: HomeLimits,
    fresh: () => HomeRecord,
    committed: (record: HomeRecord, created: boolean) => void | Promise<void>,
    sql?: SqlDatabase,
    admit?: () => Promise<void>,
  ) {
    this.#admit = admit;
    this.#store = store;
    this.#limits = limits;
    this.#fresh = fresh;
    this.#committed = committed;
    this.#maxValueBytes = Math.min(MAX_HOME_VALUE_BYTES, store.maxValueBytes ?? MAX_HOME_VALUE_BYTES);
    if (sql) this.sql = sql;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.#store.get<T>(DATA_PREFIX + checkKey(key));
  }

  async list<T>(prefix: string, limit?: number): Promise<Map<string, T>> {
    return unprefixed(await this.#store.list<T>(DATA_PREFIX + prefix, limit));
  }

  async put(key: string, value: unknown): Promise<void> {
    return this.transaction((txn) => txn.put(key, value));
  }

  async delete(key: string): Promise<boolean> {
    return this.transaction((txn) => txn.delete(key));
  }

  async transaction<T>(body: (txn: HandlerStorage) => Promise<T>): Promise<T> {
    for (;;) {
      let outcome: { record: HomeRecord; created: boolean } | undefined;
      const result = await this.#store.atomically<T | typeof NOT_ADMITTED>(async (raw) => {
        // Per attempt: an optimistic store may run this again after a conflict.
        outcome = undefined;
        const view = new Counted(raw, this.#fresh, this.#limits, this.#maxValueBytes);
        const value = await body(view);
        const written = view.written;
        // Thrown, so that the attempt's writes are dropped with it.
        if (written?.created && this.#admit) throw NOT_ADMITTED;
        if (written) {
          written.record.usedAt = Math.max(written.record.usedAt, Date.now());
          raw.put(RECORD_KEY, written.record);
          outcome = written;
        }
        return value;
      }).catch((error: unknown) => {
        if (error === NOT_ADMITTED) return NOT_ADMITTED;
        throw error;
      });
      if (result === NOT_ADMITTED) {
        // Nothing was written (the body's writes are dropped with the attempt): admitted, it runs again.
        await this.#admit!();
        this.#admit = undefined;
        continue;
      }
      if (outcome) await this.#committed(outcome.record, outcome.created);
      return result as T;
    }
  }
}

/**
 * One transaction's view of the handler's keys, keeping the record's counts as it writes. The
 * record is read at the first write: a transaction that only reads costs no read of it.
 */
class Counted implements HandlerStorage {
  readonly #raw: Transaction;
  readonly #fresh: () => HomeRecord;
  readonly #limits: HomeLimits;
  readonly #maxValueBytes: number;
  /** The record as this transaction leaves it, once it has written; whether it made the home. */
  #written: { record: HomeRecord; created: boolean } | undefined;

  constructor(raw: Transaction, fresh: () => HomeRecord, limits: HomeLimits, maxValueBytes: number) {
    this.#raw = raw;
    this.#fresh = fresh;
    this.#limits = limits;
    this.#maxValueBytes = maxValueBytes;
  }

  /** What this transaction wrote to the record; undefined when it wrote nothing. */
  get written(): { record: HomeRecord; created: boolean } | undefined {
    return this.#written;
  }

  async #record(): Promise<HomeRecord> {
    if (!this.#written) {
      const stored = await this.#raw.get<HomeRecord>(RECORD_KEY);
      this.#written = { record: stored ? { ...stored } : this.#fresh(), created: stored === undefined };
    }
    return this.#written.record;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.#raw.get<T>(DATA_PREFIX + checkKey(key));
  }

  async list<T>(prefix: string, limit?: number): Promise<Map<string, T>> {
    return unprefixed(await this.#raw.list<T>(DATA_PREFIX + prefix, limit));
  }

  async put(key: string, value: unknown): Promise<void> {
    checkKey(key);
    const size = storedSize(value, this.#maxValueBytes);
    if (size > this.#maxValueBytes) throw new RangeError(`The value for ${JSON.stringify(key)} takes more than ${this.#maxValueBytes} bytes, the most one key of this storage holds`);
    const old = await this.#raw.get(DATA_PREFIX + key);
    const record = await this.#record();
    const before = old === undefined ? 0 : storedSize(key) + storedSize(old);
    const after = storedSize(key) + size;
    const keys = record.keys + (old === undefined ? 1 : 0);
    const bytes = record.bytes - before + after;
    if (keys > this.#limits.maxKeys) {
      throw new RangeError(`This storage is full: it holds ${record.keys} keys, the most it may (MAX_HOME_KEYS); delete some before adding ${JSON.stringify(key)}`);
    }
    if (bytes > this.#limits.maxBytes && after > before) {
      throw new RangeError(`This storage is full: ${JSON.stringify(key)} would bring it to ${bytes} bytes, past the ${this.#limits.maxBytes} it may hold (MAX_HOME_BYTES); delete something first`);
    }
    this.#raw.put(DATA_PREFIX + key, value);
    record.keys = keys;
    record.bytes = bytes;
  }

  async delete(key: string): Promise<boolean> {
    const old = await this.#raw.get(DATA_PREFIX + checkKey(key));
    if (old === undefined) return false;
    const record = await this.#record();
    this.#raw.delete(DATA_PREFIX + key);
    record.keys -= 1;
    record.bytes -= storedSize(key) + storedSize(old);
    return true;
  }
}

function checkKey(key: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_HOME_KEY_CHARS) {
    throw new RangeError(`A storage key is a string of 1 to ${MAX_HOME_KEY_CHARS} characters; got ${typeof key === "string" ? `${key.length} characters` : typeof key}`);
  }
  return key;
}

function unprefixed<T>(entries: Map<string, T>): Map<string, T> {
  const out = new Map<string, T>();
  for (const [key, value] of entries) out.set(key.slice(DATA_PREFIX.length), value);
  return out;
}
