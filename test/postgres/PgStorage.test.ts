/**
 * `PgStorage` on a real PostgreSQL, as homes and sessions use it: reads, writes, deletes and
 * prefix lists in key order; values kept as structured clone keeps them; a transaction's writes
 * applied together or not at all; two processes (two connection pools) seeing each other's writes
 * and losing none of each other's updates to one home, nor going past a home's bounds together; a
 * store that ends leaving no row.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../postgres/migrate.ts";
import { BoundedStorage } from "../../capabilities/homes/BoundedStorage.ts";
import { DATA_PREFIX, type HomeRecord, RECORD_KEY } from "../../capabilities/homes/HomeRecord.ts";
import { PgStorage } from "../../postgres/PgStorage.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";

let database: FreshDatabase;
/** Two pools: two processes on one database. */
let one: Sql;
let two: Sql;

beforeAll(async () => {
  database = await freshDatabase();
  one = postgres(database.url, { max: 4, onnotice: () => {} });
  two = postgres(database.url, { max: 4, onnotice: () => {} });
  await migrate(one);
});
afterAll(async () => {
  await Promise.all([one?.end(), two?.end()]);
  await database?.drop();
});

const rows = async (table: string) => (await one`SELECT count(*)::integer AS n FROM ${one(table)}`)[0]!.n as number;

describe("a store's keys", () => {
  it("are read, written, deleted and listed by prefix in key order, at most `limit`", async () => {
    const store = PgStorage.home(one, "notebook:list");
    expect(await store.get("missing")).toBeUndefined();
    for (const key of ["data:b", "data:a", "data:c", "record", "data:", "datb"]) await store.put(key, key.toUpperCase());
    await store.put("data:b", "B again");
    expect(await store.get("data:b")).toBe("B again");
    expect([...(await store.list("data:"))]).toEqual([
      ["data:", "DATA:"],
      ["data:a", "DATA:A"],
      ["data:b", "B again"],
      ["data:c", "DATA:C"],
    ]);
    expect([...(await store.list("data:", 2)).keys()]).toEqual(["data:", "data:a"]);
    expect([...(await store.list("")).keys()]).toEqual(["data:", "data:a", "data:b", "data:c", "datb", "record"]);
    // A prefix holding LIKE's wildcards is matched as written.
    await store.put("a%_b", 1);
    expect([...(await store.list("a%")).keys()]).toEqual(["a%_b"]);
    expect([...(await store.list("a_")).keys()]).toEqual([]);
    expect(await store.delete("data:a")).toBe(true);
    expect(await store.delete("data:a")).toBe(false);
    expect(await store.get("data:a")).toBeUndefined();
  });

  it("keep values as structured clone does: dates, maps, bytes, undefined inside, nested objects", async () => {
    const store = PgStorage.session(one, "session-values");
    const value = { at: new Date(1_700_000_000_000), seen: new Map([["a", 1]]), tags: new Set(["x"]), bytes: new Uint8Array([0, 255, 7]), gone: undefined, deep: { list: [1, "two", null] }, big: 12345678901234567890n };
    await store.put("value", value);
    expect(await store.get("value")).toEqual(value);
    await store.put("text", "a'quote\"and\\back\u0000nul and ☃ and 𝄞");
    expect(await store.get("text")).toBe("a'quote\"and\\back\u0000nul and ☃ and 𝄞");
  });

  it("belong to their store: a session and a home of one id, or two homes, share nothing", async () => {
    await PgStorage.session(one, "same").put("k", "session's");
    await PgStorage.home(one, "same").put("k", "home's");
    await PgStorage.home(one, "other").put("k", "other's");
    expect(await PgStorage.session(one, "same").get("k")).toBe("session's");
    expect(await PgStorage.home(one, "same").get("k")).toBe("home's");
    expect([...(await PgStorage.home(one, "same").list(""))]).toEqual([["k", "home's"]]);
  });

  it("are seen by another process at once, written either way", async () => {
    await PgStorage.home(one, "shared").put("from-one", 1);
    expect(await PgStorage.home(two, "shared").get("from-one")).toBe(1);
    await PgStorage.home(two, "shared").put("from-two", 2);
    await PgStorage.home(two, "shared").delete("from-one");
    expect([...(await PgStorage.home(one, "shared").list(""))]).toEqual([["from-two", 2]]);
  });
});

describe("a transaction", () => {
  it("applies its writes together, and its reads see them before they commit", async () => {
    const store = PgStorage.home(one, "txn:commit");
    await store.put("old", "x");
    const seen = await store.atomically(async (txn) => {
      txn.put("a", 1);
      txn.put("b", 2);
      txn.delete("old");
      return { a: await txn.get("a"), old: await txn.get("old"), keys: [...(await txn.list("")).keys()] };
    });
    expect(seen).toEqual({ a: 1, old: undefined, keys: ["a", "b"] });
    expect([...(await store.list(""))]).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
  });

  it("writes nothing when its body fails, nor when the database refuses one of its writes", async () => {
    const store = PgStorage.home(one, "txn:fail");
    await store.put("kept", "before");
    await expect(
      store.atomically(async (txn) => {
        txn.put("kept", "after");
        txn.put("new", 1);
        throw new Error("the body failed");
      }),
    ).rejects.toThrow("the body failed");
    // The batch's statements run, the last refused by PostgreSQL (a key past what its index holds): all rolled back.
    const unindexable = Array.from(crypto.getRandomValues(new Uint8Array(6_000)), (byte) => byte.toString(36)).join("");
    await expect(
      store.atomically(async (txn) => {
        txn.put("kept", "after");
        txn.put("new", 1);
        txn.put(unindexable, "too long a key");
      }),
    ).rejects.toThrow(/index row/);
    await expect(store.put("nul\u0000key", 1)).rejects.toThrow('A storage key here holds no U+0000 character (PostgreSQL\'s text has none); got "nul\\u0000key"');
    await expect(store.atomically(async (txn) => txn.put("nul\u0000key", 1))).rejects.toThrow("holds no U+0000 character");
    await expect(store.get("nul\u0000key")).rejects.toThrow("holds no U+0000 character");
    expect([...(await store.list(""))]).toEqual([["kept", "before"]]);
    // A store never written is not made by a transaction that only read.
    await PgStorage.home(one, "txn:read-only").atomically((txn) => txn.get("anything"));
    expect(await one`SELECT id FROM mcp_homes WHERE id = 'txn:read-only'`).toEqual([]);
  });

  it("loses no update when two processes increment one home's counter at once", async () => {
    const ROUNDS = 40;
    const increment = (sql: Sql) =>
      PgStorage.home(sql, "txn:counter").atomically(async (txn) => {
        const count = (await txn.get<number>("count")) ?? 0;
        // A pause between the read and the write: without the lock, the other process would write in between.
        await new Promise((resolve) => setTimeout(resolve, 1));
        txn.put("count", count + 1);
        return count + 1;
      });
    const results = await Promise.all(Array.from({ length: ROUNDS }, (_, i) => increment(i % 2 ? one : two)));
    expect(await PgStorage.home(one, "txn:counter").get("count")).toBe(ROUNDS);
    expect(results.sort((a, b) => a - b)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i + 1));
  });
});

it("bounds a home as every backend does: two processes filling one home stop at MAX_HOME_KEYS between them, its record counting what is stored", async () => {
  const MAX_KEYS = 10;
  const fresh = (): HomeRecord => ({ kind: "user", owner: "someone", createdAt: Date.now(), usedAt: Date.now(), keys: 0, bytes: 0 });
  const home = (sql: Sql) => new BoundedStorage(PgStorage.home(sql, "user:bounded"), { maxKeys: MAX_KEYS, maxBytes: 1_000_000 }, fresh, () => {});
  const writes = await Promise.allSettled(Array.from({ length: 2 * MAX_KEYS }, (_, i) => home(i % 2 ? one : two).put(`note-${i}`, `text ${i}`)));
  expect(writes.filter((write) => write.status === "fulfilled").length).toBe(MAX_KEYS);
  const refusals = writes.flatMap((write) => (write.status === "rejected" ? [(write.reason as Error).message] : []));
  expect(refusals.length).toBe(MAX_KEYS);
  expect(refusals.every((message) => message.startsWith(`This storage is full: it holds ${MAX_KEYS} keys, the most it may (MAX_HOME_KEYS)`))).toBe(true);
  const stored = PgStorage.home(one, "user:bounded");
  const record = (await stored.get<HomeRecord>(RECORD_KEY))!;
  expect(record.keys).toBe(MAX_KEYS);
  expect((await stored.list(DATA_PREFIX)).size).toBe(MAX_KEYS);
});

it("leaves no row of a store after deleteAll, and no entry of another store is touched", async () => {
  const session = PgStorage.session(one, "ending");
  await session.put("record", { expiresAt: 1 });
  await session.atomically(async (txn) => txn.put("event:1", "data"));
  const before = { sessions: await rows("mcp_sessions"), entries: await rows("mcp_session_entries") };
  await session.deleteAll();
  expect(await one`SELECT * FROM mcp_sessions WHERE id = 'ending'`).toEqual([]);
  expect(await one`SELECT * FROM mcp_session_entries WHERE owner = 'ending'`).toEqual([]);
  expect({ sessions: await rows("mcp_sessions"), entries: await rows("mcp_session_entries") }).toEqual({ sessions: before.sessions - 1, entries: before.entries - 2 });
  expect(await PgStorage.session(one, "same").get("k")).toBe("session's");
});
