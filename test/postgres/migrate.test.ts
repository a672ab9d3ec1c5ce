/**
 * The store's migrations on a real PostgreSQL: the tables made once, a second start doing nothing,
 * two processes starting at once (two connections) migrating once between them, a failed
 * migration leaving the database as it was, and a database newer than the release refused.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate } from "../../postgres/migrate.ts";
import { MIGRATIONS } from "../../postgres/migrations.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";

let database: FreshDatabase;
const clients: Sql[] = [];
const connect = () => {
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  clients.push(sql);
  return sql;
};

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await Promise.all(clients.map((sql) => sql.end()));
  await database?.drop();
});

const tables = async (sql: Sql) => (await sql<{ name: string }[]>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`).map((row) => row.name);

it("makes the tables once, from two connections at once, and a second start does nothing", async () => {
  const [first, second] = [connect(), connect()];
  const results = await Promise.all([migrate(first), migrate(second)]);
  const latest = MIGRATIONS.length;
  // One of them migrated; the other waited for the lock and found the schema there.
  expect(results.map((r) => `${r.from}→${r.to}`).sort()).toEqual([`0→${latest}`, `${latest}→${latest}`]);
  expect(await tables(first)).toEqual(["mcp_change_messages", "mcp_fleet_messages", "mcp_home_entries", "mcp_homes", "mcp_processes", "mcp_schema", "mcp_session_entries", "mcp_session_holders", "mcp_sessions", "mcp_share_totals", "mcp_shares", "mcp_task_entries", "mcp_tasks"]);
  expect((await first`SELECT version FROM mcp_schema ORDER BY version`).map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));

  expect(await migrate(connect())).toEqual({ from: latest, to: latest });
  expect(await first`SELECT count(*)::integer AS n FROM mcp_schema`).toEqual([{ n: latest }]);
});

it("rolls a failed migration back whole: the database stays at its version", async () => {
  const sql = connect();
  const broken = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: "half right", sql: "CREATE TABLE mcp_half (id integer); SELECT no_such_function();" }];
  await expect(migrate(sql, broken)).rejects.toThrow(/no_such_function/);
  expect(await tables(sql)).not.toContain("mcp_half");
  expect(await sql`SELECT max(version)::integer AS v FROM mcp_schema`).toEqual([{ v: MIGRATIONS.length }]);
});

it("refuses a database a newer release migrated, and migrations out of order", async () => {
  const sql = connect();
  await expect(migrate(sql, MIGRATIONS.slice(0, -1))).rejects.toThrow(`The database's schema is at version ${MIGRATIONS.length}, newer than this release of durable-mcp knows (${MIGRATIONS.length - 1})`);
  await expect(migrate(sql, [{ version: 2, name: "skips one", sql: "" }])).rejects.toThrow('Migration "skips one" has version 2 at place 1');
});
