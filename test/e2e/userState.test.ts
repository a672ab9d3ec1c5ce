/**
 * State that follows the person, over real HTTP on whichever runtime `startServer`
 * starts (workerd with persistent Durable Objects; Deno with Deno KV — the contract suite runs this
 * file against both), behind the JWT issuer of `test/fixtures/auth/`: a user's note pad
 * (`mynotes`, home: "user") written over 2026-07-28 by the v2 SDK client, then over a 2025-11-25
 * session and HTTP+SSE by the v1 SDK client, read back after a restart; another user's stays apart.
 * The same for the alert board's pick: picked from the board's view in one chat, shown
 * in the next chat, on another era, and after a restart evicts every object that held it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";

const ENTRY = "test/fixtures/auth/authWorker.ts";
const ISSUER = "https://issuer.example";

let issuer: TestIssuer;
let dir: string;
let server: Awaited<ReturnType<typeof startServer>> | undefined;
let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;
const start = () => startServer({ entry: ENTRY, vars: { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, NWS_BASE_URL: nws.url }, persistDir: dir });

beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
  nws = await startNwsFixtureServer();
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-user-state-"));
  server = await start();
});
afterAll(async () => {
  await server?.dispose();
  await nws?.close();
  await rm(dir, { recursive: true, force: true });
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** A signed-in client of `subject`'s in one era: called, then closed. */
async function as(subject: string, era: "modern" | "session" | "legacy") {
  const base = server!.url;
  const path = era === "legacy" ? "/sse" : "/mcp";
  const headers = { authorization: `Bearer ${await issuer.sign({ sub: subject, aud: `${base}${path}` })}` };
  const url = new URL(path, base);
  if (era === "modern") {
    const client = new ModernClient({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new ModernTransport(url, { requestInit: { headers } }));
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    return { notes: async (args: Record<string, unknown>) => text(await client.callTool({ name: "mynotes", arguments: args })), call: (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }), close: () => client.close() };
  }
  const client = new Client({ name: era === "session" ? "v1-client" : "Cline", version: "1" });
  const transport =
    era === "session"
      ? new StreamableHTTPClientTransport(url, { requestInit: { headers } })
      : new SSEClientTransport(url, { requestInit: { headers }, eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } });
  await client.connect(transport);
  return { notes: async (args: Record<string, unknown>) => text(await client.callTool({ name: "mynotes", arguments: args })), call: (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }), close: () => client.close() };
}

async function once(subject: string, era: "modern" | "session" | "legacy", args: Record<string, unknown>): Promise<string> {
  const client = await as(subject, era);
  try {
    return await client.notes(args);
  } finally {
    await client.close();
  }
}

it("keeps alice's notes across 2026-07-28, a 2025 session, HTTP+SSE and a restart, and bob's apart", { timeout: 120_000 }, async () => {
  expect(await once("alice", "modern", { action: "add", text: "over 2026-07-28" })).toBe("Noted. The pad has 1 note(s).");
  expect(await once("alice", "session", { action: "add", text: "over a 2025 session" })).toBe("Noted. The pad has 2 note(s).");
  expect(await once("alice", "legacy", { action: "add", text: "over HTTP+SSE" })).toBe("Noted. The pad has 3 note(s).");
  expect(await once("bob", "session", { action: "list" })).toBe("The note pad is empty.");
  expect(await once("bob", "modern", { action: "add", text: "bob's own" })).toBe("Noted. The pad has 1 note(s).");

  await server!.dispose();
  server = await start();

  const alices = "1. over 2026-07-28\n2. over a 2025 session\n3. over HTTP+SSE";
  expect(await once("alice", "modern", { action: "list" })).toBe(alices);
  expect(await once("alice", "legacy", { action: "list" })).toBe(alices);
  expect(await once("bob", "modern", { action: "list" })).toBe("1. bob's own");
});

/** What the board shows `subject` in a new chat (a new client) over `era`, after `name` is called with `args`. */
async function board(subject: string, era: "modern" | "session" | "legacy", name: string, args: Record<string, unknown>) {
  const client = await as(subject, era);
  try {
    const result = await client.call(name, args);
    return result.structuredContent as { picked: string[]; kept: string };
  } finally {
    await client.close();
  }
}

it("keeps alice's alert-board pick from the view's tool across chats, eras and a restart, and bob's apart", { timeout: 120_000 }, async () => {
  // The view picks through its app-only tool in a 2025 session; a new chat over 2026-07-28 opens the board as it was left.
  expect(await board("alice", "session", "pickAlertStates", { states: ["CA", "ny"] })).toEqual(expect.objectContaining({ picked: ["CA", "NY"], kept: "user" }));
  expect(await board("alice", "modern", "alertBoard", {})).toEqual(expect.objectContaining({ picked: ["CA", "NY"], kept: "user" }));
  expect(await board("bob", "legacy", "alertBoard", {})).toEqual(expect.objectContaining({ picked: [] }));
  expect(await board("bob", "modern", "pickAlertStates", { states: ["TX"] })).toEqual(expect.objectContaining({ picked: ["TX"] }));

  // A restart evicts every object (on Deno, drops every in-memory copy): the pick was stored, not cached.
  await server!.dispose();
  server = await start();
  expect(await board("alice", "legacy", "alertBoard", {})).toEqual(expect.objectContaining({ picked: ["CA", "NY"], kept: "user" }));
  expect(await board("bob", "session", "alertBoard", {})).toEqual(expect.objectContaining({ picked: ["TX"] }));
});
