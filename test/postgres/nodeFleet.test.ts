/**
 * A Node fleet on PostgreSQL with no session affinity: two processes of the example on one
 * database behind a round-robin balancer (`roundRobin`: each request to the next process), driven
 * by the official SDK clients as a user's client meets them, over 2025 Streamable HTTP, HTTP+SSE
 * and 2026-07-28. A session's requests land on both processes and reach the one holding it; a
 * holder killed with SIGKILL hands its sessions to the other; and after every process restarts,
 * sessions, handles and their notes are all still there.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import postgres, { type Sql } from "postgres";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { bundleNodeEntry } from "../../scripts/startNodeServer.mjs";
import { freePort } from "../support/freePort.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { type Balancer, roundRobin } from "../support/roundRobin.ts";
import { type ServerProcess, startServerProcess } from "../support/startServerProcess.ts";

let database: FreshDatabase;
let sql: Sql;
let bundled: { outfile: string; remove(): void };
const running: ServerProcess[] = [];
const balancers: Balancer[] = [];
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
  bundled = await bundleNodeEntry({});
}, 60_000);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
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

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

async function connect(transport: StreamableHTTPClientTransport | SSEClientTransport) {
  const client = new Client({ name: "v1-client", version: "1" });
  await client.connect(transport);
  clients.push(client);
  return { client, call: async (name: string, args: Record<string, unknown>) => text(await client.callTool({ name, arguments: args })) };
}

async function modern(url: string) {
  const client = new ModernClient({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new ModernTransport(new URL("/mcp", url)));
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  clients.push(client);
  return async (name: string, args: Record<string, unknown>) => text(await client.callTool({ name, arguments: args }));
}

it("serves every era through a balancer with no affinity: a session's requests reach its holder whichever process they land on", { timeout: 120_000 }, async () => {
  const { balancer } = await fleet();

  const streamable = new StreamableHTTPClientTransport(new URL("/mcp", balancer.url));
  const viaMcp = await connect(streamable);
  for (const note of ["one", "two", "three"]) await viaMcp.call("notepad", { action: "add", text: note });
  expect(await viaMcp.call("notepad", { action: "list" })).toBe("1. one\n2. two\n3. three");

  const legacy = await connect(new SSEClientTransport(new URL("/sse", balancer.url)));
  for (const note of ["a", "b", "c"]) await legacy.call("notepad", { action: "add", text: note });
  expect(await legacy.call("notepad", { action: "list" })).toBe("1. a\n2. b\n3. c");
  // Sessions apart: each kept its own notes.
  expect(await viaMcp.call("notepad", { action: "list" })).toBe("1. one\n2. two\n3. three");

  const writer = await modern(balancer.url);
  const notebook = /notebook ([0-9a-f]{32})/.exec(await writer("notebook", { action: "add", text: "first" }))![1]!;
  await writer("notebook", { notebook, action: "add", text: "second" });
  const reader = await modern(balancer.url);
  expect(await reader("notebook", { notebook, action: "list" })).toBe("1. first\n2. second");

  // Both processes answered, turn by turn.
  expect(new Set(balancer.routed)).toEqual(new Set([0, 1]));

  const sessionId = streamable.sessionId!;
  await streamable.terminateSession();
  const [left] = await sql<{ n: number }[]>`
    SELECT ((SELECT count(*) FROM mcp_sessions WHERE id = ${sessionId}) + (SELECT count(*) FROM mcp_session_entries WHERE owner = ${sessionId}))::int AS n`;
  expect(left!.n).toBe(0);
});

it("hands a killed holder's session to the other process, and keeps every session and handle across a restart of all", { timeout: 180_000 }, async () => {
  const { ports, servers, balancer } = await fleet();
  const streamable = new StreamableHTTPClientTransport(new URL("/mcp", balancer.url));
  const session = await connect(streamable);
  await session.call("notepad", { action: "add", text: "before the kill" });
  const writer = await modern(balancer.url);
  const notebook = /notebook ([0-9a-f]{32})/.exec(await writer("notebook", { action: "add", text: "kept" }))![1]!;

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
