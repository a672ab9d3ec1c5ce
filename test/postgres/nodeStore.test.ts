/**
 * Node on PostgreSQL, as a user runs it: the authorization fixture's server bundled and started in
 * a process of its own with `--store` (or `DATABASE_URL`), driven by the official SDK clients. A
 * user's home, a handle and a 2025 session are written, the process is killed (`SIGKILL`: nothing
 * flushed on the way out) and started again, and a new client reads them back while the old
 * client's session carries on. A session ended by its client, and a session (with its fair share)
 * and homes left to expire with their process dead, leave 0 rows (the tables are queried). Without a store the
 * server says in one line that its state is lost on restart; a database it cannot reach stops the
 * start with one line and exit 1. Two processes on one database count a client's sessions
 * together: the one past its share is refused by either, and a slot given back through one is
 * taken through the other.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import postgres, { type Sql } from "postgres";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { bundleNodeEntry } from "../../scripts/startNodeServer.mjs";
import { freePort } from "../support/freePort.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { failedStart } from "../support/failedStart.ts";
import { type ServerProcess, startServerProcess } from "../support/startServerProcess.ts";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const ISSUER = "https://issuer.example";
const MEMORY_NOTICE = /^state is in memory and lost on restart: pass --store postgres:\/\/… \(or set DATABASE_URL\) to keep it$/;
/** How long rows may take to go once their lifetimes are over: a wakeup and a sweep at start. */
const GONE_WITHIN_MS = 20_000;

let issuer: TestIssuer;
let database: FreshDatabase;
let sql: Sql;
let bundled: { outfile: string; remove(): void };
const running: ServerProcess[] = [];

beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
  database = await freshDatabase();
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  bundled = await bundleNodeEntry({ main: "test/fixtures/auth/authNode.ts" });
}, 60_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
  bundled?.remove();
});

async function start(port: number, args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({
    command: [process.execPath, bundled.outfile, "--port", String(port), ...args],
    env: { LOG_LEVEL: "error", NO_COLOR: "1", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, DATABASE_URL: "", ...env },
    url: `http://127.0.0.1:${port}`,
  });
  running.push(server);
  return server;
}

/** Ends the process at once, as a crash or an evicted container does. */
async function kill(server: ServerProcess): Promise<void> {
  process.kill(-server.pid, "SIGKILL");
  await server.stop();
  running.splice(running.indexOf(server), 1);
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const headersFor = async (url: string, subject: string) => ({ authorization: `Bearer ${await issuer.sign({ sub: subject, aud: `${url}/mcp` })}` });

/** A v1 SDK client in a 2025 session, signed in as `subject`. */
async function sessionClient(url: string, subject: string) {
  const client = new Client({ name: "v1-client", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers: await headersFor(url, subject) } });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => text(await client.callTool({ name, arguments: args }));
  return { client, transport, call };
}

/** A v2 SDK client over 2026-07-28 (no session), signed in as `subject`. */
async function modernClient(url: string, subject: string) {
  const client = new ModernClient({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new ModernTransport(new URL("/mcp", url), { requestInit: { headers: await headersFor(url, subject) } }));
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  const call = async (name: string, args: Record<string, unknown>) => text(await client.callTool({ name, arguments: args }));
  return { client, call };
}

async function rows(db: Sql): Promise<{ sessions: number; session_entries: number; homes: number; home_entries: number; shares: number }> {
  const [counts] = await db<{ sessions: number; session_entries: number; homes: number; home_entries: number; shares: number }[]>`
    SELECT (SELECT count(*) FROM mcp_sessions)::int AS sessions, (SELECT count(*) FROM mcp_session_entries)::int AS session_entries,
           (SELECT count(*) FROM mcp_homes)::int AS homes, (SELECT count(*) FROM mcp_home_entries)::int AS home_entries,
           (SELECT count(*) FROM mcp_shares)::int + (SELECT count(*) FROM mcp_share_totals)::int AS shares`;
  return { ...counts! };
}

async function sessionRows(id: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT ((SELECT count(*) FROM mcp_sessions WHERE id = ${id}) + (SELECT count(*) FROM mcp_session_entries WHERE owner = ${id}))::int AS n`;
  return row!.n;
}

it("keeps a user's home, a handle and a session across a kill and a restart, and a session ended leaves no row", { timeout: 90_000 }, async () => {
  const port = await freePort();
  const first = await start(port, ["--store", database.url]);
  expect(first.printed().some((line) => MEMORY_NOTICE.test(line.text))).toBe(false);

  const alice = await sessionClient(first.url, "alice");
  expect(await alice.call("mynotes", { action: "add", text: "in alice's home" })).toBe("Noted. The pad has 1 note(s).");
  const opened = await alice.call("notebook", { action: "add", text: "in a notebook" });
  const notebook = /notebook ([0-9a-f]{32})/.exec(opened)![1]!;
  expect(await alice.call("notepad", { action: "add", text: "in the session" })).toBe("Noted. The pad has 1 note(s).");
  const sessionId = alice.transport.sessionId!;
  expect(await sessionRows(sessionId)).toBeGreaterThan(0);

  await kill(first);
  // Started again on the same database, named this time by DATABASE_URL alone.
  const second = await start(port, [], { DATABASE_URL: database.url });
  expect(second.printed().some((line) => MEMORY_NOTICE.test(line.text))).toBe(false);

  const again = await modernClient(second.url, "alice");
  expect(await again.call("mynotes", { action: "list" })).toBe("1. in alice's home");
  expect(await again.call("notebook", { notebook, action: "list" })).toBe("1. in a notebook");
  await again.client.close();
  // The session the first process held goes on in the second: its storage was loaded at start.
  expect(await alice.call("notepad", { action: "list" })).toBe("1. in the session");

  await alice.transport.terminateSession();
  await alice.client.close();
  expect(await sessionRows(sessionId)).toBe(0);
});

it("leaves 0 rows once a session, a user's home and a handle outlive their lifetimes, though their process died", { timeout: 90_000 }, async () => {
  const own = await freshDatabase();
  const db = postgres(own.url, { max: 1, onnotice: () => {} });
  try {
    const port = await freePort();
    const lifetimes = { SESSION_IDLE_TTL_MS: "1000", HOME_RETENTION_MS: "1500" };
    const first = await start(port, ["--store", own.url], lifetimes);
    const bob = await sessionClient(first.url, "bob");
    await bob.call("mynotes", { action: "add", text: "bob's" });
    await bob.call("notepad", { action: "add", text: "bob's session" });
    const carol = await modernClient(first.url, "carol");
    await carol.call("notebook", { action: "add", text: "carol's notebook" });
    expect(Object.values(await rows(db)).every((n) => n > 0)).toBe(true);
    await kill(first);
    await Promise.all([bob.client.close(), carol.client.close()]);

    // Past every lifetime with no process running: the next one wakes the homes that fell due and sweeps the session.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await start(port, ["--store", own.url], lifetimes);
    const deadline = Date.now() + GONE_WITHIN_MS;
    let left: { id: string; keys: number; due_in_hours: number }[] = [];
    for (;;) {
      left = await db`
        SELECT h.id, (SELECT count(*) FROM mcp_home_entries e WHERE e.owner = h.id)::int AS keys,
               round(extract(epoch FROM h.wake_at - now()) / 3600)::int AS due_in_hours
        FROM mcp_homes h ORDER BY h.id`;
      const { sessions, session_entries, shares } = await rows(db);
      if ((sessions + session_entries + shares === 0 && left.length === 0) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // The session's fair share lapsed at its deadline too, and the sweep at start deleted it.
    expect(await rows(db)).toMatchObject({ sessions: 0, session_entries: 0, shares: 0 });
    // Bob's home, carol's notebook and carol's own home, which held the notebook's fair share and
    // went with it once it was given back: every row and every key.
    expect(left).toEqual([]);
  } finally {
    await Promise.all(running.splice(0).map((server) => server.stop()));
    await db.end();
    await own.drop();
  }
});

it("counts a client's sessions across two processes on one database: the one past MAX_SESSIONS_PER_CLIENT is refused by either, and what ends leaves no holding", { timeout: 90_000 }, async () => {
  const own = await freshDatabase();
  const db = postgres(own.url, { max: 1, onnotice: () => {} });
  const holdings = async () => (await db<{ n: number }[]>`SELECT count(*)::int AS n FROM mcp_shares WHERE resource = 'session'`)[0]!.n;
  try {
    const limits = { MAX_SESSIONS_PER_CLIENT: "2" };
    const [first, second] = await Promise.all([start(await freePort(), ["--store", own.url], limits), start(await freePort(), ["--store", own.url], limits)]);
    const one = await sessionClient(first.url, "dave");
    const two = await sessionClient(second.url, "dave");
    expect(await holdings()).toBe(2);
    // Each process alone holds one of dave's sessions; together they hold his share, so both refuse a third.
    for (const server of [first, second]) await expect(sessionClient(server.url, "dave")).rejects.toThrow("This client holds 2 sessions, the most one client may hold at once (MAX_SESSIONS_PER_CLIENT); retry after 60s");
    const erin = await sessionClient(second.url, "erin");
    // A session ended through one process gives its slot back to the other.
    await one.transport.terminateSession();
    const three = await sessionClient(second.url, "dave");
    expect(await three.call("notepad", { action: "add", text: "third" })).toBe("Noted. The pad has 1 note(s).");
    for (const client of [two, erin, three]) await client.transport.terminateSession();
    await Promise.all([one, two, erin, three].map((client) => client.client.close()));
    expect(await holdings()).toBe(0);
    expect(await db`SELECT * FROM mcp_shares`).toEqual([]);
    expect(await db`SELECT * FROM mcp_share_totals`).toEqual([]);
  } finally {
    await Promise.all(running.splice(0).map((server) => server.stop()));
    await db.end();
    await own.drop();
  }
});

it("says in one line, without a store, that its state is in memory and lost on restart; a DATABASE_URL of another kind is left alone", { timeout: 60_000 }, async () => {
  const server = await start(await freePort(), []);
  expect(server.printed().filter((line) => MEMORY_NOTICE.test(line.text))).toHaveLength(1);
  const beside = await start(await freePort(), [], { DATABASE_URL: "mysql://app@127.0.0.1/app" });
  expect(beside.printed().filter((line) => MEMORY_NOTICE.test(line.text))).toHaveLength(1);
});

it("refuses to start on a database it cannot reach: one line, exit 1, and no password printed", { timeout: 60_000 }, async () => {
  const port = await freePort();
  const unreachable = `postgres://someone:hunter2@127.0.0.1:${await freePort()}/nothing`;
  const { code, lines, stdout } = await failedStart(process.execPath, [bundled.outfile, "--port", String(port), "--store", unreachable], { ...process.env, LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, DATABASE_URL: "" });
  expect(code).toBe(1);
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", event: "start.failed", message: expect.stringContaining(`Cannot use PostgreSQL at 127.0.0.1:`) });
  expect(lines.join("\n") + stdout).not.toContain("hunter2");
  expect(stdout).not.toContain("serving on");
});
