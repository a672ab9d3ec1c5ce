/**
 * Fair shares across Deno processes: two Deno servers on one KV file count a client's sessions
 * together (`KvShares`, which `kvStore` brings). With MAX_SESSIONS_PER_CLIENT at 2, a client (one
 * address, no sign-in) holding one session through each process is refused a third through either,
 * with the 429 that names the limit; a session it ends through one process gives the slot back to
 * the other.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { BOTH, initialize, openStreamableSession, postJson } from "../support/httpSession.ts";

const vars = { LOG_LEVEL: "error", MAX_SESSIONS_PER_CLIENT: "2" };

type Server = Awaited<ReturnType<typeof startDenoServer>>;
let dir: string;
let first: Server | undefined;
let second: Server | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-shares-"));
  const kvPath = join(dir, "shared.kv");
  [first, second] = await Promise.all([0, 1].map(() => startDenoServer({ definition: "test/runtime/testServer.ts", vars, kvPath })));
});
afterAll(async () => {
  await Promise.all([first?.dispose(), second?.dispose()]);
  await rm(dir, { recursive: true, force: true });
});

/** What `initialize` answers through `server`: its status and, for a refusal, the error's message. */
async function opening(server: Server): Promise<{ status: number; message?: string; retryAfter: string | null }> {
  const response = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH } });
  const body = response.headers.get("content-type")?.includes("application/json") ? ((await response.json()) as { error?: { message: string } }) : (await response.arrayBuffer(), {});
  return { status: response.status, message: body.error?.message, retryAfter: response.headers.get("retry-after") };
}

it("refuses a client's third session through either process when each holds one, and a session ended through one frees a slot for the other", { timeout: 60_000 }, async () => {
  const one = await openStreamableSession(first!.url);
  await openStreamableSession(second!.url);
  const refusal = { status: 429, message: "This client holds 2 sessions, the most one client may hold at once (MAX_SESSIONS_PER_CLIENT); retry after 60s", retryAfter: "60" };
  expect(await opening(first!)).toEqual(refusal);
  expect(await opening(second!)).toEqual(refusal);

  const ended = await fetch(`${first!.url}/mcp`, { method: "DELETE", headers: one.headers });
  expect(ended.status).toBe(204);
  expect((await opening(second!)).status).toBe(200);
});
