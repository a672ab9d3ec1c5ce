/**
 * `PgFleet` on a real PostgreSQL: each process is a fleet on a connection pool of its own, all on
 * one database, with a short lease (HEARTBEAT_MS 200 ms, TTL_MS 2 s here: room for a busy machine's pauses). A session claimed by
 * one is seen held by the others, and claims made at once agree; a process whose pool ends without
 * leaving is dead once its lease lapses, its sessions go to the next asker, and its rows (process,
 * holders, unread messages) are swept; release gives a session up only by its holder; messages
 * arrive in order whatever their sizes, one at the bound is carried and one past it refused; a
 * process whose row is deleted behind its back is expelled once; a receiver whose listening
 * connection drops reads the stored messages it was not told of; `leave()` leaves 0 rows, and so
 * does closing the store that made the fleet (`postgresStore`).
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { postgresStore } from "../../node/postgresStore.ts";
import { migrate } from "../../postgres/migrate.ts";
import { PgFleet } from "../../postgres/PgFleet.ts";
import { MAX_FLEET_MESSAGE_BYTES } from "../../shared/runtime/Fleet.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";

const HEARTBEAT_MS = 200;
const TTL_MS = 2_000;
/** How long a poll waits for what a lease's lapse and a sweep bring: many leases, so a busy machine still passes. */
const PATIENCE_MS = 20_000;

let database: FreshDatabase;
/** The test's own pool, to look at and tamper with the tables. */
let db: Sql;
const pools: Sql[] = [];
const fleets: PgFleet[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  db = postgres(database.url, { max: 2, onnotice: () => {} });
  await migrate(db);
});
afterAll(async () => {
  await Promise.all(fleets.map((fleet) => fleet.leave().catch(() => {})));
  await Promise.all([db, ...pools].map((sql) => sql.end()));
  await database?.drop();
});

interface Process {
  fleet: PgFleet;
  sql: Sql;
  received: string[];
  expelled: number;
  errors: unknown[];
}

/** A process of the fleet: a pool of its own and a fleet joined on it, recording what it is told. */
async function joined(): Promise<Process> {
  const sql = postgres(database.url, { max: 3, onnotice: () => {} });
  pools.push(sql);
  const process: Process = { fleet: undefined!, sql, received: [], expelled: 0, errors: [] };
  process.fleet = new PgFleet(sql, { heartbeatMs: HEARTBEAT_MS, ttlMs: TTL_MS, onError: (error) => process.errors.push(error) });
  fleets.push(process.fleet);
  await process.fleet.join({ receive: (message) => process.received.push(message), expelled: () => process.expelled++ });
  return process;
}

/** Resolves once `check` holds, polling; fails with `what` after PATIENCE_MS. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + PATIENCE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Still not so after ${PATIENCE_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The rows that name the process `id` in each of the fleet's tables. */
async function rowsOf(id: string): Promise<{ processes: number; holders: number; messages: number }> {
  const [row] = await db<{ processes: number; holders: number; messages: number }[]>`
    SELECT (SELECT count(*) FROM mcp_processes WHERE id = ${id})::int AS processes,
           (SELECT count(*) FROM mcp_session_holders WHERE holder = ${id})::int AS holders,
           (SELECT count(*) FROM mcp_fleet_messages WHERE to_process = ${id})::int AS messages`;
  return row!;
}

it("gives a session to the first asker, and every other process sees it held there", async () => {
  const [a, b] = await Promise.all([joined(), joined()]);
  expect(a.fleet.self).toMatch(/^[0-9a-f]{32}$/);
  expect(a.fleet.self).not.toBe(b.fleet.self);
  expect(await a.fleet.holder("session-seen")).toBe(a.fleet.self);
  expect(await b.fleet.holder("session-seen")).toBe(a.fleet.self);
  expect(await a.fleet.holder("session-seen")).toBe(a.fleet.self);
  expect([await b.fleet.alive(a.fleet.self), await a.fleet.alive(b.fleet.self), await a.fleet.alive("nobody")]).toEqual([true, true, false]);
});

it("agrees on one holder when processes claim the same sessions at once", async () => {
  const [a, b, c] = await Promise.all([joined(), joined(), joined()]);
  const ids = Array.from({ length: 60 }, (_, i) => `session-raced-${i}`);
  const answers = await Promise.all(ids.map((id) => Promise.all([a, b, c].map((p) => p.fleet.holder(id)))));
  for (const answer of answers) expect(new Set(answer).size).toBe(1);
  const holders = await db<{ holder: string }[]>`SELECT holder FROM mcp_session_holders WHERE session_id LIKE 'session-raced-%' ORDER BY session_id`;
  expect(holders.length).toBe(ids.length);
  expect(holders.every(({ holder }) => [a, b, c].some((p) => p.fleet.self === holder))).toBe(true);
});

it("declares a process dead once it stops renewing its lease, lets the others take its sessions at once and agree, and sweeps its rows", async () => {
  const [a, b, killed] = await Promise.all([joined(), joined(), joined()]);
  const ids = Array.from({ length: 20 }, (_, i) => `session-orphaned-${i}`);
  for (const id of ids) expect(await killed.fleet.holder(id)).toBe(killed.fleet.self);
  // A message it will never read: a stored one, as large as the fleet carries.
  await killed.sql.end();
  await a.fleet.send(killed.fleet.self, "x".repeat(MAX_FLEET_MESSAGE_BYTES));
  expect(await rowsOf(killed.fleet.self)).toEqual({ processes: 1, holders: ids.length, messages: 1 });
  expect(await b.fleet.holder(ids[0]!)).toBe(killed.fleet.self);

  await until("the killed process is dead", async () => !(await a.fleet.alive(killed.fleet.self)));
  const answers = await Promise.all(ids.map((id) => Promise.all([a.fleet.holder(id), b.fleet.holder(id)])));
  for (const [fromA, fromB] of answers) {
    expect(fromA).toBe(fromB);
    expect([a.fleet.self, b.fleet.self]).toContain(fromA);
  }
  // Its own heartbeat, out of reach of the database for a lease, told it it is out.
  await until("the killed process knows it is expelled", () => killed.expelled === 1);
  await until("the killed process's rows are swept", async () => Object.values(await rowsOf(killed.fleet.self)).every((n) => n === 0));
  // Its sessions stay with their new holders: the sweep took only what named the dead one.
  expect((await db`SELECT 1 FROM mcp_session_holders WHERE session_id LIKE 'session-orphaned-%'`).length).toBe(ids.length);
});

it("releases a session only from its holder, after which the next asker holds it", async () => {
  const [a, b] = await Promise.all([joined(), joined()]);
  expect(await a.fleet.holder("session-released")).toBe(a.fleet.self);
  await b.fleet.release("session-released");
  expect(await b.fleet.holder("session-released")).toBe(a.fleet.self);
  await a.fleet.release("session-released");
  expect((await db`SELECT 1 FROM mcp_session_holders WHERE session_id = 'session-released'`).length).toBe(0);
  expect(await b.fleet.holder("session-released")).toBe(b.fleet.self);
  await a.fleet.release("never-held");
});

it("delivers messages in the order sent, small and stored ones interleaved, sent without waiting for each other", async () => {
  const [a, b] = await Promise.all([joined(), joined()]);
  const sizes = [10, 20_000, 7_998, 7_999, 3, MAX_FLEET_MESSAGE_BYTES, 1, 9_000, 9_000, 2, 40_000, 5];
  const messages = Array.from({ length: 48 }, (_, i) => {
    const head = `${i}:`;
    const size = sizes[i % sizes.length]!;
    return i % 7 === 3 ? head + "☃".repeat(Math.max(0, Math.floor((size - head.length) / 3))) : head + "m".repeat(Math.max(0, size - head.length));
  });
  await Promise.all(messages.map((message) => a.fleet.send(b.fleet.self, message)));
  await until("every message arrived", () => b.received.length >= messages.length);
  expect(b.received.map((m) => m.slice(0, 12))).toEqual(messages.map((m) => m.slice(0, 12)));
  expect(b.received).toEqual(messages);
  await until("every stored message is read and deleted", async () => (await rowsOf(b.fleet.self)).messages === 0);
  expect(b.errors).toEqual([]);

  await a.fleet.send(a.fleet.self, "to itself");
  await until("a process hears itself", () => a.received.includes("to itself"));
});

it(`carries a message of ${MAX_FLEET_MESSAGE_BYTES} bytes and refuses one byte more, naming its size, before anything is written`, async () => {
  const [a, b] = await Promise.all([joined(), joined()]);
  await expect(a.fleet.send(b.fleet.self, "y".repeat(MAX_FLEET_MESSAGE_BYTES + 1))).rejects.toThrow(`is ${MAX_FLEET_MESSAGE_BYTES + 1} bytes, over the ${MAX_FLEET_MESSAGE_BYTES} a fleet carries`);
  // The bound is in UTF-8 bytes: 20,001 snowmen are 60,003.
  await expect(a.fleet.send(b.fleet.self, "☃".repeat(20_001))).rejects.toThrow("is 60003 bytes");
  await a.fleet.send(b.fleet.self, "z".repeat(MAX_FLEET_MESSAGE_BYTES));
  await until("the message at the bound arrived", () => b.received.length === 1);
  expect(b.received[0]).toBe("z".repeat(MAX_FLEET_MESSAGE_BYTES));
  expect(await rowsOf(b.fleet.self)).toMatchObject({ messages: 0 });
});

it("loses, without an error, what is sent to a process that is not in the fleet", async () => {
  const a = await joined();
  const nobody = "0".repeat(32);
  await a.fleet.send(nobody, "small");
  await a.fleet.send(nobody, "s".repeat(10_000));
  expect(await rowsOf(nobody)).toEqual({ processes: 0, holders: 0, messages: 0 });
  expect(a.errors).toEqual([]);
});

it("expels a process once when its row is deleted behind its back: it stops renewing and claims nothing", async () => {
  const [a, b] = await Promise.all([joined(), joined()]);
  expect(await a.fleet.holder("session-of-expelled")).toBe(a.fleet.self);
  await db`DELETE FROM mcp_processes WHERE id = ${a.fleet.self}`;
  await until("the process is expelled", () => a.expelled > 0);
  // Several heartbeats later, still once, and still out.
  await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 4));
  expect(a.expelled).toBe(1);
  expect(await rowsOf(a.fleet.self)).toEqual({ processes: 0, holders: 0, messages: 0 });
  await expect(a.fleet.holder("session-of-expelled")).rejects.toThrow(`Process ${a.fleet.self} is not in its fleet (it has not joined, has left, or was expelled)`);
  expect(await b.fleet.holder("session-of-expelled")).toBe(b.fleet.self);
  expect(b.expelled).toBe(0);
  expect(a.errors.map(String)).toContain(`Error: Process ${a.fleet.self} found its lease lapsed or gone: it leaves the fleet`);
});

it("reads the stored messages addressed to it once its listening connection comes back", async () => {
  const b = await joined();
  // A stored message whose notification was lost, as one published while the connection was down.
  await db`INSERT INTO mcp_fleet_messages (to_process, message) VALUES (${b.fleet.self}, 'first unheard'), (${b.fleet.self}, 'second unheard')`;
  const ended = await db`
    SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
    WHERE datname = current_database() AND query ILIKE ${`listen "mcp_fleet_${b.fleet.self}"%`}`;
  expect(ended.length).toBe(1);
  await until("the stored messages are read", () => b.received.length === 2);
  expect(b.received).toEqual(["first unheard", "second unheard"]);
  expect(await rowsOf(b.fleet.self)).toMatchObject({ messages: 0 });
});

it("leaves 0 rows of its own once it leaves: its lease, its sessions and its unread messages", async () => {
  const [a, b] = await Promise.all([joined(), joined()]);
  for (const id of ["left-1", "left-2", "left-3"]) await a.fleet.holder(id);
  await db`INSERT INTO mcp_fleet_messages (to_process, message) VALUES (${a.fleet.self}, 'never read')`;
  expect(await rowsOf(a.fleet.self)).toEqual({ processes: 1, holders: 3, messages: 1 });
  await a.fleet.leave();
  await a.fleet.leave();
  expect(await rowsOf(a.fleet.self)).toEqual({ processes: 0, holders: 0, messages: 0 });
  expect(await b.fleet.alive(a.fleet.self)).toBe(false);
  expect(await b.fleet.holder("left-1")).toBe(b.fleet.self);
  await b.fleet.send(a.fleet.self, "after it left");
  expect(a.received).toEqual([]);
  expect(a.expelled).toBe(0);
});

it("refuses a lease that does not outlast its heartbeat, and a second join", async () => {
  expect(() => new PgFleet(db, { heartbeatMs: 1_000, ttlMs: 1_000 })).toThrow("ttlMs 1000 is not more than heartbeatMs 1000");
  const a = await joined();
  await expect(a.fleet.join({ receive() {}, expelled() {} })).rejects.toThrow("has joined its fleet already");
  await a.fleet.leave();
  await expect(a.fleet.join({ receive() {}, expelled() {} })).rejects.toThrow("make a new PgFleet to join again");
});

it("is made once by the PostgreSQL store, whose close leaves the fleet first: 0 rows of its own", async () => {
  const store = await postgresStore(database.url, { onError: (error) => expect.unreachable(String(error)) });
  const fleet = store.fleet!();
  expect(store.fleet!()).toBe(fleet);
  await fleet.join({ receive() {}, expelled() {} });
  expect(await fleet.holder("session-of-store")).toBe(fleet.self);
  expect(await rowsOf(fleet.self)).toMatchObject({ processes: 1, holders: 1 });
  await store.close();
  expect(await rowsOf(fleet.self)).toEqual({ processes: 0, holders: 0, messages: 0 });
});
