/**
 * `PgSessions` and `PgHomeExpiries` on a real database: a session's deadline follows its record
 * into `mcp_sessions.expires_at`; the sessions loaded at start are those not past it, at most
 * MAX_RESTORED_SESSIONS; the sweep deletes every session past it with its entries, in batches of
 * SWEEP_BATCH (a backlog past one batch goes whole), and leaves the others; a home's wake-up time
 * is set, replaced, read and cleared in its row, and clearing an empty home's time removes the row.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { PgHomeExpiries } from "../../capabilities/homes/postgres/PgHomeExpiries.ts";
import { migrate } from "../../postgres/migrate.ts";
import { MAX_RESTORED_SESSIONS, PgSessions, SWEEP_BATCH } from "../../postgres/PgSessions.ts";
import { PgStorage } from "../../postgres/PgStorage.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";

let database: FreshDatabase;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase();
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  await migrate(sql);
});
beforeEach(async () => {
  await sql`TRUNCATE mcp_sessions, mcp_homes CASCADE`;
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

const count = async (table: "mcp_sessions" | "mcp_session_entries" | "mcp_homes" | "mcp_home_entries") => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(table)}`)[0]!.n;

/** `n` sessions with one entry each, whose deadline is `deadlineMs`. */
async function sessions(prefix: string, n: number, deadlineMs: number): Promise<void> {
  await sql`INSERT INTO mcp_sessions (id, expires_at) SELECT ${prefix} || i, ${new Date(deadlineMs)} FROM generate_series(1, ${n}) AS i`;
  await sql`INSERT INTO mcp_session_entries (owner, key, value) SELECT ${prefix} || i, 'k', '\\x00' FROM generate_series(1, ${n}) AS i`;
}

it("copies a session's deadline from its record to its row, and a session ended leaves none", async () => {
  const store = new PgSessions(sql).storageFor("s1");
  const expiresAt = Date.now() + 60_000;
  await store.put("session", { expiresAt, owner: "x" });
  await store.put("other", { expiresAt: 1 });
  const [row] = await sql<{ expires_at: Date }[]>`SELECT expires_at FROM mcp_sessions WHERE id = 's1'`;
  expect(row!.expires_at.getTime()).toBe(expiresAt);
  expect(await store.get("session")).toEqual({ expiresAt, owner: "x" });
  await store.deleteAll();
  expect([await count("mcp_sessions"), await count("mcp_session_entries")]).toEqual([0, 0]);
});

it("sweeps every session past its deadline, a backlog past one batch included, and leaves the live ones", async () => {
  const backlog = 2 * SWEEP_BATCH + 1;
  await sessions("old-", backlog, Date.now() - 1_000);
  await sessions("live-", 3, Date.now() + 60_000);
  expect(await new PgSessions(sql).sweep()).toBe(backlog);
  expect([await count("mcp_sessions"), await count("mcp_session_entries")]).toEqual([3, 3]);
  expect((await new PgSessions(sql).ids()).sort()).toEqual(["live-1", "live-2", "live-3"]);
});

it("loads at most MAX_RESTORED_SESSIONS at start, none past its deadline", async () => {
  await sessions("live-", MAX_RESTORED_SESSIONS + 1, Date.now() + 60_000);
  await sessions("old-", 2, Date.now() - 1_000);
  const ids = await new PgSessions(sql).ids();
  expect(ids).toHaveLength(MAX_RESTORED_SESSIONS);
  expect(ids.some((id) => id.startsWith("old-"))).toBe(false);
});

it("keeps a home's wake-up time in its row: set, replaced, read, due, cleared", async () => {
  const expiries = new PgHomeExpiries(sql);
  await PgStorage.home(sql, "kept").put("k", 1);
  await expiries.set("kept", 5_000);
  await expiries.set("kept", 2_000);
  await expiries.set("empty", 3_000);
  expect(await expiries.at("kept")).toBe(2_000);
  expect(await expiries.next()).toBe(2_000);
  expect(await expiries.due(2_500, 10)).toEqual(["kept"]);
  expect(await expiries.due(10_000, 1)).toEqual(["kept"]);
  await expiries.clear("kept");
  await expiries.clear("empty");
  expect(await expiries.at("kept")).toBeUndefined();
  expect(await expiries.next()).toBeUndefined();
  // The home that holds an entry keeps its row (without a time); the empty one's row is gone.
  expect((await sql<{ id: string }[]>`SELECT id FROM mcp_homes`).map((row) => row.id)).toEqual(["kept"]);
});
