/**
 * The OAuth example on Deno keeps its authorization server's state in Deno KV (`kvNamespace`, keys
 * under `["oauth"]` in the server's KV file): a client, its grant and its tokens are there once a
 * person signed in; the server restarted on the same file and port still accepts the access token,
 * refreshes with the refresh token, and keeps the user's notes; a second process on the file
 * accepts the same token, as two isolates share a Workers KV namespace.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { denoKvKeys } from "../support/denoKvKeys.ts";
import { connectWithOAuth, HeadlessOAuthProvider } from "../support/headlessOAuth.ts";
import { BOTH, initialize, postJson } from "../support/httpSession.ts";

const MAIN = "example/oauth/deno.ts";
const vars = { LOG_LEVEL: "error" };
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

let dir: string;
let kvPath: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-oauth-kv-"));
  kvPath = join(dir, "oauth.kv");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it("keeps clients, grants and tokens in the KV file, across a restart and between processes", { timeout: 120_000 }, async () => {
  let server = await startDenoServer({ main: MAIN, vars, kvPath });
  const { port, url } = server;
  const provider = new HeadlessOAuthProvider({ expectedIssuer: url, typed: { user: "alice" } });
  try {
    const { client } = await connectWithOAuth(new URL(`${url}/mcp`), { provider });
    expect(textOf(await client.callTool({ name: "notepad", arguments: { action: "add", text: "before the restart" } }))).toBe("Noted. The pad has 1 note(s).");
    await client.close();
  } finally {
    await server.dispose();
  }
  const names = (await denoKvKeys(kvPath, ["oauth"])).map((key) => String(key[1]).split(":")[0]);
  expect(new Set(names)).toEqual(new Set(["client", "grant", "token"]));

  server = await startDenoServer({ main: MAIN, vars, kvPath, port });
  const second = await startDenoServer({ main: MAIN, vars: { ...vars, MCP_RESOURCE: `${url}/mcp` }, kvPath });
  try {
    const signedIn = (base: string) =>
      postJson(`${base}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, authorization: `Bearer ${provider.storedTokens!.access_token}` } });
    const again = await signedIn(url);
    expect(again.status).toBe(200);
    await again.arrayBuffer();
    // Another process on the file, serving the same resource, knows the token too.
    const elsewhere = await signedIn(second.url);
    expect(elsewhere.status).toBe(200);
    await elsewhere.arrayBuffer();
    // The refresh token too: a stale access token is refreshed against the restarted server.
    provider.storedTokens = { ...provider.storedTokens!, access_token: "alice:stale:token" };
    const { client } = await connectWithOAuth(new URL(`${url}/mcp`), { provider, client: new Client({ name: "after-restart", version: "1" }) });
    expect(textOf(await client.callTool({ name: "notepad", arguments: { action: "list" } }))).toBe("1. before the restart");
    expect(provider.authorizations).toBe(1);
    await client.close();
  } finally {
    await Promise.all([server.dispose(), second.dispose()]);
  }
});
