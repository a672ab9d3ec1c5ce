/**
 * The PostgreSQL store shared by a Node process and a Deno process (`test/fixtures/postgresDeno.ts`)
 * on one database: Deno finds the tables Node made, each reads the values the other wrote (V8's
 * serialization, read by the other runtime), their transactions on one home's counter lose no
 * update, and Node hears what Deno publishes, on a channel and as a change (too large for a
 * notification: stored as a row, read by Node).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";
import { migrate } from "../../postgres/migrate.ts";
import { MIGRATIONS } from "../../postgres/migrations.ts";
import { PgBroadcaster } from "../../capabilities/watch/postgres/PgBroadcaster.ts";
import { PgChannel } from "../../postgres/PgChannel.ts";
import { PgStorage } from "../../postgres/PgStorage.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { Lines } from "../support/Lines.ts";

/** The fixture's increments, and Node's. */
const ROUNDS = 20;

let database: FreshDatabase;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase();
  sql = postgres(database.url, { max: 4, onnotice: () => {} });
  await migrate(sql);
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

it("is one store for Node and Deno: values, transactions and notifications cross", { timeout: 60_000 }, async () => {
  const home = PgStorage.home(sql, "shared-by-runtimes");
  await home.put("from-node", { at: new Date(0), seen: new Map([["node", 1]]), list: [1, "two"] });
  const heard: string[] = [];
  const subscription = await new PgChannel(sql, "mcp_runtimes").subscribe((payload) => heard.push(payload));
  const changes = new PgBroadcaster(sql, { maxBytes: 65_536 });
  const listening = new AbortController();
  const tools = new Lines(await changes.subscribe("tools", listening.signal));

  const deno = promisify(execFile)(denoBinary, [...DENO_FLAGS, "test/fixtures/postgresDeno.ts", database.url], { timeout: 50_000 });
  for (let i = 0; i < ROUNDS; i++) {
    await home.atomically(async (txn) => {
      const count = (await txn.get<number>("count")) ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 1));
      txn.put("count", count + 1);
    });
  }
  const { stdout } = await deno;
  const seen = JSON.parse(stdout.trim().split("\n").at(-1)!);

  expect(seen).toEqual({ migrated: { from: MIGRATIONS.length, to: MIGRATIONS.length }, fromNode: { at: new Date(0).toISOString(), seen: [["node", 1]], list: [1, "two"] } });
  expect(await home.get("from-deno")).toEqual({ at: new Date(86_400_000), seen: new Map([["deno", true]]), bytes: new Uint8Array([9, 8, 7]) });
  expect(await home.get("count")).toBe(2 * ROUNDS);
  for (let i = 0; heard.length === 0 && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(heard).toEqual(["deno is done"]);
  await subscription.unsubscribe();
  expect(await tools.take(1)).toEqual([{ from: "deno", stored: "s".repeat(9_000) }]);
  listening.abort();
  await changes.close();
});
