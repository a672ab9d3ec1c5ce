/**
 * Fair shares across Deno processes: two Deno servers on one KV file count a client's sessions
 * together (`KvShares`, which `kvStore` brings). With MAX_SESSIONS_PER_CLIENT at 2, a client (one
 * address, no sign-in) holding one session through each process is refused a third through either,
 * with the 429 that names the limit; a session it ends through one process gives the slot back to
 * the other. With 5, 24 sessions opened through both processes at once give it 5 and no more. A
 * client's share may be larger than one KV value holds (each holding is a key of its own): 1,100
 * sessions of one client are served, and the next one refused. A task's holding left to lapse at
 * its TTL is swept from the file by a process started after it lapsed: no key is left for a client
 * that never comes back.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { denoKvKeys } from "../support/denoKvKeys.ts";
import { BOTH, initialize, openStreamableSession, postJson, postModern } from "../support/httpSession.ts";

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

it("gives a client no more than its share when its sessions are opened through both processes at once", { timeout: 60_000 }, async () => {
  const own = join(dir, "racing.kv");
  const racers = await Promise.all([0, 1].map(() => startDenoServer({ definition: "test/runtime/testServer.ts", vars: { LOG_LEVEL: "error", MAX_SESSIONS_PER_CLIENT: "5" }, kvPath: own })));
  try {
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => opening(racers[i % 2]!)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(19);
    expect(await denoKvKeys(own, ["share", "session"])).toHaveLength(5);
  } finally {
    await Promise.all(racers.map((server) => server.dispose()));
  }
});

it("gives a task's holding back at its TTL, and sweeps it from a process started after one that died first: no key of its client is left", { timeout: 90_000 }, async () => {
  const own = join(dir, "lapsing.kv");
  const taskVars = { LOG_LEVEL: "error", TASK_TTL_MS: "1500" };
  const startTask = async (server: Server) => {
    const response = await postModern(server.url, "tools/call", { name: "task_steps", arguments: { steps: 1, ms: 10 } }, { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } }, name: "task_steps" });
    expect(((await response.json()) as { result?: { resultType?: string } }).result?.resultType).toBe("task");
  };
  const left = async () => [...(await denoKvKeys(own, ["share"])), ...(await denoKvKeys(own, ["shareTurn"]))];
  const gone = async () => {
    const deadline = Date.now() + 20_000;
    while ((await left()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    return left();
  };
  let creator: Server | undefined = await startDenoServer({ definition: "test/runtime/testServer.ts", vars: taskVars, kvPath: own });
  let sweeper: Server | undefined;
  try {
    await startTask(creator);
    expect(await denoKvKeys(own, ["share", "task"])).toHaveLength(1);
    // The process that deletes the task at its TTL gives its holding back then.
    expect(await gone()).toEqual([]);

    await startTask(creator);
    await creator.kill();
    creator = undefined;
    // Its process died before its TTL: the holding lapses, and a process started after sweeps it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await denoKvKeys(own, ["share", "task"])).toHaveLength(1);
    sweeper = await startDenoServer({ definition: "test/runtime/testServer.ts", vars: taskVars, kvPath: own });
    expect(await gone()).toEqual([]);
  } finally {
    await Promise.all([creator?.dispose(), sweeper?.dispose()]);
  }
});

it("serves a client a share larger than one KV value holds: 1,100 sessions, then the next refused", { timeout: 120_000 }, async () => {
  const many = 1_100;
  const server = await startDenoServer({ definition: "test/runtime/testServer.ts", vars: { LOG_LEVEL: "error", MAX_SESSIONS_PER_CLIENT: String(many), MAX_SESSIONS: "100000" }, kvPath: join(dir, "many.kv") });
  try {
    const statuses = new Map<number, number>();
    for (let i = 0; i < many; i++) {
      const { status } = await opening(server);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect([...statuses]).toEqual([[200, many]]);
    expect(await opening(server)).toMatchObject({ status: 429, message: expect.stringContaining(`This client holds ${many} sessions`) });
  } finally {
    await server.dispose();
  }
});
