/**
 * `PgShares` on a real database: the bounds per client and in total (room for newcomers past half
 * of it, counted by network for clients known by address, bytes for tasks) answer exactly as
 * `LocalShares` answers the same calls; a renewal is not a new holding, a holding found at a
 * restart (`held`) counts whatever the bounds, a holding past its `until` counts no more and is
 * swept (in batches past SWEEP_BATCH); two connection pools racing for a client's last slots, or
 * the total's, take no more than the bound between them; released and swept holdings leave 0 rows,
 * and `mcp_share_totals` always says what `mcp_shares` holds.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { migrate } from "../../postgres/migrate.ts";
import { PgShares, SWEEP_BATCH } from "../../postgres/PgShares.ts";
import { type Config, readConfig } from "../../shared/config/readConfig.ts";
import type { Checked } from "../../shared/errors/Checked.ts";
import { clientKey } from "../../shared/shares/clientKey.ts";
import { LocalShares } from "../../shared/shares/LocalShares.ts";
import type { ShareClaim, ShareResource, Shares } from "../../shared/shares/Shares.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";

let database: FreshDatabase;
let sql: Sql;
let other: Sql;

beforeAll(async () => {
  database = await freshDatabase();
  // Two pools, as two processes on the database have.
  sql = postgres(database.url, { max: 4, onnotice: () => {} });
  other = postgres(database.url, { max: 4, onnotice: () => {} });
  await migrate(sql);
});
beforeEach(async () => {
  await sql`TRUNCATE mcp_shares`;
});
afterAll(async () => {
  await Promise.all([sql?.end(), other?.end()]);
  await database?.drop();
});

const rows = async () => (await sql<{ n: number }[]>`SELECT count(*)::integer AS n FROM mcp_shares`)[0]!.n;
/** What `mcp_share_totals` says the table holds, and what it holds: always the same. */
const totals = async () => ({
  kept: await sql`SELECT resource, holdings::integer AS holdings, bytes::integer AS bytes FROM mcp_share_totals ORDER BY resource`,
  counted: await sql`SELECT resource, count(*)::integer AS holdings, sum(bytes)::integer AS bytes FROM mcp_shares GROUP BY resource ORDER BY resource`,
});
const outcome = (checked: Checked<void>) => (checked.ok ? "taken" : `${checked.error.status} ${checked.error.message}`);
const small = (limits: Record<string, string>): Config => readConfig({ ...limits });

type Call = { op: "acquire" | "release"; resource: ShareResource; client: string; id: string; claim?: ShareClaim; now: number };
type Counter = Shares & { acquire(resource: ShareResource, client: string, id: string, claim?: ShareClaim, now?: number): Promise<Checked<void>> };

/** A fixed walk (a linear congruential sequence) through both resources and every client: ids taken again, released, lapsing, held. */
function walk(clients: string[], steps: number): Call[] {
  let seed = 7;
  const next = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648), Math.floor(seed / 65_536) % n);
  const calls: Call[] = [];
  for (let step = 0; step < steps; step++) {
    const resource: ShareResource = next(2) === 0 ? "session" : "task";
    const client = clients[next(clients.length)]!;
    const id = `${resource}-${next(8)}`;
    const now = 1_000_000 + step * 100;
    const kind = next(10);
    if (kind < 3) calls.push({ op: "release", resource, client, id, now });
    else calls.push({ op: "acquire", resource, client, id, now, claim: { until: kind < 6 ? now + 2_000 : kind < 9 ? now + 30_000 : undefined, bytes: resource === "task" ? (next(3) === 0 ? 500 : 10) : 0, held: kind === 9 && next(3) === 0 } });
  }
  return calls;
}

/** What `shares` answers to each acquire of `calls`, in order; then what each client holds at the end. */
async function answers(shares: Counter, calls: Call[], clients: string[], held: (resource: ShareResource, client: string, now: number) => Promise<unknown>): Promise<{ said: string[]; holding: unknown[] }> {
  const said: string[] = [];
  for (const call of calls) {
    if (call.op === "release") await shares.release(call.resource, call.client, call.id);
    else said.push(outcome(await shares.acquire(call.resource, call.client, call.id, call.claim, call.now)));
  }
  // One more call (by a client of its own) at the end, so LocalShares drops what lapsed by then.
  const end = 1_000_000 + calls.length * 100;
  const holding: unknown[] = [];
  for (const resource of ["session", "task"] as const) {
    await shares.acquire(resource, "probe", "p", { held: true }, end);
    for (const client of clients) holding.push(await held(resource, client, end));
  }
  return { said, holding };
}

it("answers a walk of calls exactly as LocalShares does: per client, in total, by network past half, bytes, renewals, lapses, held and releases", async () => {
  // Three addresses of one /24 (one network), one of another, and two signed-in principals.
  const addresses = await Promise.all(["203.0.113.7", "203.0.113.8", "203.0.113.9", "198.51.100.1"].map((address) => clientKey(undefined, address)));
  const clients = [...addresses, "alice-digest", "bob-digest"];
  const calls = walk(clients, 400);
  const kinds = new Set<string>();
  // Once with totals far off (each client's own bounds bite), once with totals the clients crowd.
  for (const bounds of [
    { MAX_SESSIONS: "1000", MAX_TASKS: "1000", MAX_TASK_BYTES: "1000000" },
    { MAX_SESSIONS: "14", MAX_TASKS: "18", MAX_TASK_BYTES: "3000" },
  ]) {
    await sql`TRUNCATE mcp_shares`;
    const config = small({ MAX_SESSIONS_PER_CLIENT: "3", MAX_TASKS_PER_CLIENT: "4", MAX_TASK_BYTES_PER_CLIENT: "800", ...bounds });
    const local = new LocalShares(config);
    const pg = new PgShares(sql, config);
    const expected = await answers(local, calls, clients, async (resource, client) => local.held(resource, client));
    expect(await answers(pg, calls, clients, (resource, client, now) => pg.held(resource, client, now))).toEqual(expected);
    const { kept, counted } = await totals();
    expect(kept).toEqual(counted);
    for (const said of expected.said) kinds.add(said.includes("network") ? "network" : (/\((MAX_\w+)\)/.exec(said)?.[1] ?? said));
  }
  // The walks met every kind of answer: taken, and each bound's refusal, a network's among them.
  expect([...kinds].sort()).toEqual(["MAX_SESSIONS", "MAX_SESSIONS_PER_CLIENT", "MAX_TASKS", "MAX_TASKS_PER_CLIENT", "MAX_TASK_BYTES", "MAX_TASK_BYTES_PER_CLIENT", "network", "taken"]);
});

it("refuses a client past its own share with a 429 naming the limit; a renewal is not a new holding; another client is not held back", async () => {
  const pg = new PgShares(sql, small({ MAX_SESSIONS_PER_CLIENT: "2" }));
  expect(outcome(await pg.acquire("session", "alice", "1"))).toBe("taken");
  expect(outcome(await pg.acquire("session", "alice", "2"))).toBe("taken");
  const refused = await pg.acquire("session", "alice", "3");
  expect(outcome(refused)).toBe("429 This client holds 2 sessions, the most one client may hold at once (MAX_SESSIONS_PER_CLIENT); retry after 60s");
  expect(refused.ok ? undefined : refused.error.headers).toEqual({ "retry-after": "60" });
  // Taking "1" again renews it (a session pushing its deadline on): never refused, still two.
  expect(outcome(await pg.acquire("session", "alice", "1", { until: Date.now() + 60_000 }))).toBe("taken");
  expect(await pg.held("session", "alice")).toEqual({ count: 2, bytes: 0 });
  expect(outcome(await pg.acquire("session", "bob", "1"))).toBe("taken");
});

it("counts a holding a restart finds (held) whatever the bounds", async () => {
  const pg = new PgShares(sql, small({ MAX_SESSIONS_PER_CLIENT: "2" }));
  for (const id of ["1", "2"]) await pg.acquire("session", "alice", id);
  expect(outcome(await pg.acquire("session", "alice", "3", { held: true }))).toBe("taken");
  expect(await pg.held("session", "alice")).toEqual({ count: 3, bytes: 0 });
  expect((await pg.acquire("session", "alice", "4")).ok).toBe(false);
});

it("stops counting a holding past its until: taking its id again is a new holding, checked; the sweep deletes it", async () => {
  const pg = new PgShares(sql, small({ MAX_SESSIONS_PER_CLIENT: "2", MAX_TASKS_PER_CLIENT: "1" }));
  const now = Date.now();
  await pg.acquire("session", "alice", "1", { until: now + 1_000 }, now);
  await pg.acquire("session", "alice", "2", { until: now + 5_000 }, now);
  expect((await pg.acquire("session", "alice", "3", {}, now + 999)).ok).toBe(false);
  expect((await pg.acquire("session", "alice", "3", {}, now + 1_000)).ok).toBe(true);
  expect(await pg.held("session", "alice", now + 1_000)).toEqual({ count: 2, bytes: 0 });
  // "1" lapsed: taking it again is a third holding, refused.
  expect((await pg.acquire("session", "alice", "1", { until: now + 9_000 }, now + 1_000)).ok).toBe(false);

  await pg.acquire("task", "bob", "t", { until: now + 1_000, bytes: 10 }, now);
  expect(await rows()).toBe(4);
  expect(await PgShares.sweep(sql, now + 1_000)).toBe(2);
  expect(await sql`SELECT resource, client, id FROM mcp_shares ORDER BY id`).toEqual([
    { resource: "session", client: "alice", id: "2" },
    { resource: "session", client: "alice", id: "3" },
  ]);
  // A holding with no until lasts until released: the sweep leaves it, its release deletes it.
  expect(await PgShares.sweep(sql, now + 10_000)).toBe(1);
  await pg.release("session", "alice", "3");
  await pg.release("session", "alice", "3");
  expect(await rows()).toBe(0);
  expect(await totals()).toEqual({ kept: [], counted: [] });
});

it("sweeps a backlog past one batch whole, and leaves the holdings that have not lapsed", async () => {
  const now = Date.now();
  await sql`INSERT INTO mcp_shares (resource, client, network, id, until) SELECT 'session', 'c' || (i % 7), 'c' || (i % 7), i::text, ${new Date(now - 1)} FROM generate_series(1, ${SWEEP_BATCH * 2 + 3}) AS i`;
  await sql`INSERT INTO mcp_shares (resource, client, network, id, until) VALUES ('task', 'c', 'c', 'live', ${new Date(now + 60_000)})`;
  expect(await PgShares.sweep(sql, now)).toBe(SWEEP_BATCH * 2 + 3);
  expect(await rows()).toBe(1);
  const { kept, counted } = await totals();
  expect(kept).toEqual([{ resource: "task", holdings: 1, bytes: 0 }]);
  expect(kept).toEqual(counted);
});

it("counts task bytes per client and in total, and a release gives them back", async () => {
  const pg = new PgShares(sql, small({ MAX_TASK_BYTES_PER_CLIENT: "100", MAX_TASK_BYTES: "1000" }));
  expect(outcome(await pg.acquire("task", "alice", "1", { bytes: 60 }))).toBe("taken");
  expect(outcome(await pg.acquire("task", "alice", "2", { bytes: 60 }))).toBe(
    "429 This client's tasks would hold 120 bytes of arguments, past the 100 one client may (MAX_TASK_BYTES_PER_CLIENT); retry after 60s",
  );
  await pg.release("task", "alice", "1");
  expect(outcome(await pg.acquire("task", "alice", "2", { bytes: 60 }))).toBe("taken");
  expect(await pg.held("task", "alice")).toEqual({ count: 1, bytes: 60 });
  // Renewed with other bytes: the totals follow.
  expect(outcome(await pg.acquire("task", "alice", "2", { bytes: 80 }))).toBe("taken");
  expect((await totals()).kept).toEqual([{ resource: "task", holdings: 1, bytes: 80 }]);
});

it("gives one client no more than its share when two pools race for its last slots", async () => {
  const config = small({ MAX_SESSIONS_PER_CLIENT: "5" });
  const [here, there] = [new PgShares(sql, config), new PgShares(other, config)];
  const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? here : there).acquire("session", "alice", `s${i}`)));
  expect(answers.filter((answer) => answer.ok)).toHaveLength(5);
  expect(await here.held("session", "alice")).toEqual({ count: 5, bytes: 0 });
});

it("takes one holding, not several, when two pools race to take the same id for a client one short of its share", async () => {
  const config = small({ MAX_SESSIONS_PER_CLIENT: "2" });
  const [here, there] = [new PgShares(sql, config), new PgShares(other, config)];
  await here.acquire("session", "alice", "first");
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? here : there).acquire("session", "alice", "same")));
  expect(answers.map(outcome)).toEqual(Array(12).fill("taken"));
  expect(await here.held("session", "alice")).toEqual({ count: 2, bytes: 0 });
});

it("gives no more than the total when two pools race for its last slots, and what ends leaves 0 rows", async () => {
  const config = small({ MAX_SESSIONS: "8" });
  const [here, there] = [new PgShares(sql, config), new PgShares(other, config)];
  // Newcomers (each holding nothing) may fill the total to the last one; 30 of them race for 8.
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? here : there).acquire("session", `client-${i}`, "s")));
  const taken = answers.flatMap((answer, i) => (answer.ok ? [i] : []));
  expect(taken).toHaveLength(8);
  expect(answers.find((answer) => !answer.ok)).toMatchObject({ error: { message: "This server holds 8 sessions, the most it holds at once (MAX_SESSIONS); retry after 60s" } });
  expect(await rows()).toBe(8);
  await Promise.all(taken.map((i) => (i % 2 === 0 ? there : here).release("session", `client-${i}`, "s")));
  expect(await rows()).toBe(0);
  expect(await totals()).toEqual({ kept: [], counted: [] });
});
