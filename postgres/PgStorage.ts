/**
 * `AtomicStore` in PostgreSQL: a session's, a home's or a task's key-value rows, what several Node or Deno
 * processes on one database share. Each store is one owner row (`mcp_sessions`, `mcp_homes` or `mcp_tasks`,
 * by id) and its entries (`mcp_session_entries`, `mcp_home_entries`, `mcp_task_entries`: owner, key, value), made by
 * `migrate`. The owner row is made by the first write and removed with every entry by
 * `deleteAll`, so a store that ends leaves no row. Values are V8-serialized, as Durable Object
 * storage and Deno KV keep them: what `structuredClone` keeps, this keeps.
 *
 * Transactions (`atomically`) are pessimistic: each takes a transaction-scoped advisory lock on
 * its store before its first read, so writers of one store, in this process or another, run one
 * after another, each body once, each seeing every write committed before it. Within a connection
 * pool they also queue before taking a connection, so the writers of one busy store hold one
 * pooled connection, not all of them. A plain `put` or `delete` is one statement and takes no
 * lock: a store written through transactions should be written only through them, as a home's is.
 *
 * Not here: limits (`BoundedStorage` bounds a home above this; PostgreSQL takes values far larger
 * than any bound there); expiry (a host sets a session's `expires_at` or a home's `wake_at`, and
 * sweeps); keys holding U+0000 (PostgreSQL's text has none: refused with a sentence) or longer
 * than its index takes (a few kilobytes, far past a home's longest key: PostgreSQL refuses the
 * write); JavaScript's key order past the Basic Multilingual Plane (keys sort by UTF-8 bytes,
 * which puts U+E000–U+FFFF after astral characters, where JavaScript's sort puts them before).
 */
import { deserialize, serialize } from "node:v8";
import type { Sql, TransactionSql } from "postgres";
import { type AtomicStore, type Transaction, WriteBuffer } from "../shared/storage/AtomicStore.ts";

/** The two kinds of store, by their owner table and their entries table. */
const KINDS = {
  session: { owners: "mcp_sessions", entries: "mcp_session_entries" },
  home: { owners: "mcp_homes", entries: "mcp_home_entries" },
  task: { owners: "mcp_tasks", entries: "mcp_task_entries" },
} as const;
type Kind = keyof typeof KINDS;

/** Per connection pool, the last transaction queued per store: the next waits for it before taking a connection. */
const turnsOf = new WeakMap<Sql, Map<string, Promise<unknown>>>();

export class PgStorage implements AtomicStore {
  readonly #sql: Sql;
  readonly #kind: Kind;
  readonly #id: string;

  private constructor(sql: Sql, kind: Kind, id: string) {
    this.#sql = sql;
    this.#kind = kind;
    this.#id = id;
  }

  /** A session's store, by its id. */
  static session(sql: Sql, id: string): PgStorage {
    return new PgStorage(sql, "session", id);
  }

  /** A home's store, by its name (`homeName`). */
  static home(sql: Sql, name: string): PgStorage {
    return new PgStorage(sql, "home", name);
  }

  /** A task's store, by its id: its row in `mcp_tasks` carries its wakeup and lease beside. */
  static task(sql: Sql, id: string): PgStorage {
    return new PgStorage(sql, "task", id);
  }

  async get<T>(key: string): Promise<T | undefined> {
    return readOne<T>(this.#sql, this.#kind, this.#id, key);
  }

  async list<T>(prefix: string, limit?: number): Promise<Map<string, T>> {
    return readMany<T>(this.#sql, this.#kind, this.#id, prefix, limit);
  }

  async put(key: string, value: unknown): Promise<void> {
    const { owners, entries } = KINDS[this.#kind];
    // One statement: the owner row (if new) and the entry. The foreign key is checked at the
    // statement's end, when the owner row made alongside is there.
    await this.#sql`
      WITH owner AS (INSERT INTO ${this.#sql(owners)} (id) VALUES (${this.#id}) ON CONFLICT (id) DO NOTHING)
      INSERT INTO ${this.#sql(entries)} (owner, key, value) VALUES (${this.#id}, ${checkKey(key)}, ${encode(value)})
      ON CONFLICT (owner, key) DO UPDATE SET value = excluded.value`;
  }

  async delete(key: string): Promise<boolean> {
    const { entries } = KINDS[this.#kind];
    const deleted = await this.#sql`DELETE FROM ${this.#sql(entries)} WHERE owner = ${this.#id} AND key = ${checkKey(key)}`;
    return deleted.count > 0;
  }

  /** Removes the owner row and, with it, every entry: the store is gone. */
  async deleteAll(): Promise<void> {
    const { owners } = KINDS[this.#kind];
    await this.#sql`DELETE FROM ${this.#sql(owners)} WHERE id = ${this.#id}`;
  }

  atomically<T>(body: (txn: Transaction) => Promise<T>): Promise<T> {
    const name = `${this.#kind}:${this.#id}`;
    let turns = turnsOf.get(this.#sql);
    if (!turns) turnsOf.set(this.#sql, (turns = new Map()));
    const run = (turns.get(name) ?? Promise.resolve()).then(() => this.#transaction(body));
    const done = run.catch(() => {});
    turns.set(name, done);
    void done.then(() => turns.get(name) === done && turns.delete(name));
    return run;
  }

  async #transaction<T>(body: (txn: Transaction) => Promise<T>): Promise<T> {
    const kind = this.#kind;
    const id = this.#id;
    const { owners, entries } = KINDS[kind];
    return (await this.#sql.begin(async (tx) => {
      // The lock's key: this store's name, hashed to 64 bits. Two stores that share a hash only wait for each other.
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`${kind}:${id}`}, 0))`;
      const txn = new WriteBuffer({
        get: (key) => readOne(tx, kind, id, key),
        list: (prefix, limit) => readMany(tx, kind, id, prefix, limit),
      });
      const result = await body(txn);
      if (txn.writes.size === 0) return result;
      const puts = [...txn.writes].filter(([, write]) => write).map(([key, write]) => ({ owner: id, key: checkKey(key), value: encode(write!.value) }));
      const deletes = [...txn.writes].filter(([, write]) => !write).map(([key]) => checkKey(key));
      if (puts.length > 0) {
        await tx`INSERT INTO ${tx(owners)} (id) VALUES (${id}) ON CONFLICT (id) DO NOTHING`;
        await tx`INSERT INTO ${tx(entries)} ${tx(puts, "owner", "key", "value")} ON CONFLICT (owner, key) DO UPDATE SET value = excluded.value`;
      }
      if (deletes.length > 0) await tx`DELETE FROM ${tx(entries)} WHERE owner = ${id} AND key = ANY(${tx.array(deletes)}::text[])`;
      return result;
    })) as T;
  }
}

async function readOne<T>(sql: Sql | TransactionSql, kind: Kind, id: string, key: string): Promise<T | undefined> {
  const [row] = await sql<{ value: Uint8Array }[]>`SELECT value FROM ${sql(KINDS[kind].entries)} WHERE owner = ${id} AND key = ${checkKey(key)}`;
  return row ? (decode(row.value) as T) : undefined;
}

async function readMany<T>(sql: Sql | TransactionSql, kind: Kind, id: string, prefix: string, limit?: number): Promise<Map<string, T>> {
  // `key >= prefix` lets the primary key's index start at the prefix; `starts_with` ends the range.
  const rows = await sql<{ key: string; value: Uint8Array }[]>`
    SELECT key, value FROM ${sql(KINDS[kind].entries)}
    WHERE owner = ${id} AND key >= ${checkKey(prefix)} AND starts_with(key, ${prefix})
    ORDER BY key ${limit === undefined || limit === Infinity ? sql`` : sql`LIMIT ${limit}`}`;
  return new Map(rows.map((row) => [row.key, decode(row.value) as T]));
}

/** `key`, or a sentence when PostgreSQL's text cannot hold it. */
function checkKey(key: string): string {
  if (key.includes("\u0000")) throw new RangeError(`A storage key here holds no U+0000 character (PostgreSQL's text has none); got ${JSON.stringify(key.slice(0, 80))}`);
  return key;
}

const encode = (value: unknown): Uint8Array => serialize(value);
const decode = (bytes: Uint8Array): unknown => deserialize(bytes);
