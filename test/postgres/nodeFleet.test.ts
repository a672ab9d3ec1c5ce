/**
 * A Node fleet on PostgreSQL with no session affinity: two processes of the example on one
 * database behind a round-robin balancer (`roundRobin`: each request to the next process), driven
 * by the official SDK clients as a user's client meets them, over 2025 Streamable HTTP, HTTP+SSE
 * and 2026-07-28. A session's requests land on both processes and reach the one holding it; a
 * holder killed with SIGKILL hands its sessions to the other; and after every process restarts,
 * sessions, handles and their notes are all still there.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { bundleNodeEntry } from "../../scripts/startNodeServer.mjs";
import { closeAll, hearsAcrossProcesses, modernClient as modern, notebookIn, servesEveryEra, sessionClient as connect, streamableAt } from "../support/fleetClients.ts";
import { freePort } from "../support/freePort.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { type Balancer, roundRobin } from "../support/roundRobin.ts";
import { type ServerProcess, startServerProcess } from "../support/startServerProcess.ts";

let database: FreshDatabase;
let sql: Sql;
let bundled: { outfile: string; remove(): void };
const running: ServerProcess[] = [];
const balancers: Balancer[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  bundled = await bundleNodeEntry({});
}, 60_000);
afterEach(async () => {
  await closeAll();
  await Promise.all(balancers.splice(0).map((balancer) => balancer.close()));
  await Promise.all(running.splice(0).map((server) => server.stop()));
});
afterAll(async () => {
  await sql?.end();
  await database?.drop();
  bundled?.remove();
});

async function start(port: number): Promise<ServerProcess> {
  const server = await startServerProcess({
    command: [process.execPath, bundled.outfile, "--port", String(port), "--store", database.url],
    env: { LOG_LEVEL: "error", NO_COLOR: "1", DATABASE_URL: "" },
    url: `http://127.0.0.1:${port}`,
  });
  running.push(server);
  return server;
}

/** Two processes on the database and a balancer in front of them. */
async function fleet(): Promise<{ ports: number[]; servers: ServerProcess[]; balancer: Balancer }> {
  const ports = [await freePort(), await freePort()];
  const servers = await Promise.all(ports.map(start));
  const balancer = await roundRobin(servers.map((server) => server.url));
  balancers.push(balancer);
  return { ports, servers, balancer };
}

/** Ends the process at once, as a crash or an evicted container does. */
async function kill(server: ServerProcess): Promise<void> {
  process.kill(-server.pid, "SIGKILL");
  await server.stop();
  running.splice(running.indexOf(server), 1);
}

it("serves every era through a balancer with no affinity: a session's requests reach its holder whichever process they land on", { timeout: 120_000 }, async () => {
  const { balancer } = await fleet();

  const streamable = await servesEveryEra(balancer);

  const sessionId = streamable.sessionId!;
  await streamable.terminateSession();
  const [left] = await sql<{ n: number }[]>`
    SELECT ((SELECT count(*) FROM mcp_sessions WHERE id = ${sessionId}) + (SELECT count(*) FROM mcp_session_entries WHERE owner = ${sessionId}))::int AS n`;
  expect(left!.n).toBe(0);
});

it("hands a killed holder's session to the other process, and keeps every session and handle across a restart of all", { timeout: 180_000 }, async () => {
  const { ports, servers, balancer } = await fleet();
  const streamable = streamableAt(balancer.url);
  const session = await connect(streamable);
  await session.call("notepad", { action: "add", text: "before the kill" });
  const writer = await modern(balancer.url);
  const notebook = notebookIn(await writer("notebook", { action: "add", text: "kept" }));

  // The process that took the initialize holds the session: kill it mid-session.
  const holder = servers[balancer.routed[0]!]!;
  await kill(holder);
  // The other process takes the session up once the holder's lease lapses, loading it from the database.
  expect(await session.call("notepad", { action: "list" })).toBe("1. before the kill");
  await session.call("notepad", { action: "add", text: "after the kill" });

  // Every process restarts, on the same ports behind the same balancer.
  for (const server of [...running]) await kill(server);
  await Promise.all(ports.map(start));
  expect(await session.call("notepad", { action: "list" })).toBe("1. before the kill\n2. after the kill");
  const reader = await modern(balancer.url);
  expect(await reader("notebook", { notebook, action: "list" })).toBe("1. kept");
});

it("tells a listen and a 2025 subscription on one process of a notebook written through the other, in each era", { timeout: 120_000 }, async () => {
  const { servers } = await fleet();
  await hearsAcrossProcesses(servers[0]!.url, servers[1]!.url);
});
