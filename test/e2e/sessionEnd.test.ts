/**
 * How Streamable HTTP sessions and requests end, over raw HTTP on whichever runtime `startServer`
 * starts (workerd; Deno with RUNTIME=deno — the contract suite runs this file against both), with
 * persistent storage (Durable Object storage on workerd, Deno KV on Deno):
 *
 * - a session past its deadline stays ended across a restart: its id answers 404 and, on Deno,
 *   `LocalSessions.restore()` wipes its keys from KV at startup, before any request names it;
 * - a POST whose request is cancelled, or whose session is deleted, still gets its HTTP response,
 *   and that response's body ends (a client is never left waiting on a socket);
 * - a 40,001-character method and a 40,001-character reply after a progress notification, each
 *   ending in "—", are answered and the server stays up: Deno KV counts such a string at two
 *   bytes per UTF-16 unit (any character past U+00FF does that to the whole string), 80,002 bytes
 *   against its 64 KiB value limit, and exceeding it once crashed the Deno server.
 *
 * Not here: expiry while a server runs (`test/runtime/sessions.test.ts`), a restart that keeps a
 * live session (`restart.test.ts`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { denoKvKeys } from "../support/denoKvKeys.ts";
import { call, openStreamableSession, postJson, type StreamableSession } from "../support/httpSession.ts";
import { SseReader } from "../support/SseReader.ts";
import { messagesOf } from "../support/messagesOf.ts";
import { unexplained } from "../support/serverLogs.ts";

const ENTRY = "test/runtime/testWorker.ts";
/** A short idle TTL, so a session's deadline passes while the server is down. */
const IDLE_TTL_MS = 1_500;
/** A session ends at most 1.5 × the TTL after its last activity; past that, with room for a slow machine. */
const PAST_THE_DEADLINE_MS = IDLE_TTL_MS * 1.5 + 2_000;
/** How long a cancelled or deleted POST may take to be answered before the test calls it a hang. */
const ANSWER_BOUND_MS = 10_000;
/** How long the test lets a `wait` call run before cancelling it: long enough to be admitted and running. */
const RUNNING_MS = 200;
/**
 * workerd's warning when a restarted object's overdue alarm, started at once, is set again before
 * it ran: the expired session's alarm, which this file's restart provokes.
 */
const ALARM_RESCHEDULED = /SQLite alarm handler canceled with requestScheduledAlarm/;
/**
 * workerd's warning when a restarted object's overdue alarm runs though it was set again meanwhile:
 * the client's home, whose alarm was armed at the session's deadline (its fair share) and is armed
 * again at once when the expired session gives the share back.
 */
const ALARM_OVERDUE = /SQLite alarm overdue, running despite AlarmManager mismatch/;
/** The file `startServer` gives Deno KV inside `persistDir` (`--kv`). */
const KV_FILE = "sessions.kv";

/** `runtime` is returned on both runtimes ("workerd" | "deno"), though startServer's JSDoc return type leaves it out. */
type Server = Awaited<ReturnType<typeof startServer>> & { runtime: string };

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function persistDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-session-end-"));
  dirs.push(dir);
  return dir;
}

/** Settles with the response once its body has been read to the end; rejects if that takes longer than `ms`. */
async function answeredWithin(ms: number, response: Promise<Response>, what: string): Promise<{ status: number; body: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const read = response.then(async (r) => ({ status: r.status, body: await r.text() }));
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} got no complete HTTP response within ${ms} ms`)), ms)));
  try {
    return await Promise.race([read, hung]);
  } finally {
    clearTimeout(timer);
  }
}


it("a restart does not resurrect an expired session", { timeout: 120_000 }, async () => {
  const dir = await persistDir();
  const vars = { LOG_LEVEL: "error", SESSION_IDLE_TTL_MS: String(IDLE_TTL_MS) };
  let server = (await startServer({ entry: ENTRY, vars, persistDir: dir, captureLogs: true })) as Server;
  const kvPath = join(dir, KV_FILE);
  let session!: StreamableSession;
  try {
    session = await openStreamableSession(server.url);
    const noted: any = await (await session.post(call(1, "notepad", { action: "add", text: "gone with its session" }))).json();
    expect(noted.result.content[0].text).toBe("Noted. The pad has 1 note(s).");
  } finally {
    await server.dispose();
  }
  expect(unexplained(server.logs())).toEqual([]);
  const stoppedAt = Date.now();
  const ownKeys = ["session", session.sessionId];
  // The session is stored when the server stops: what the restart must not bring back.
  if (server.runtime === "deno") expect((await denoKvKeys(kvPath, ownKeys)).length).toBeGreaterThan(0);

  await sleep(Math.max(0, PAST_THE_DEADLINE_MS - (Date.now() - stoppedAt)));
  server = (await startServer({ entry: ENTRY, vars, persistDir: dir, captureLogs: true })) as Server;
  try {
    // Wiped at startup (`restore`), not on first use: nothing of it is left to read.
    if (server.runtime === "deno") expect(await denoKvKeys(kvPath, ownKeys)).toEqual([]);
    // The restarted server serves on a new port: the same session id, sent there.
    const ping = await postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id: 2, method: "ping" }, { headers: session.headers });
    expect(ping.status, await ping.text()).toBe(404);

    const fresh = await openStreamableSession(server.url);
    expect(fresh.sessionId).not.toBe(session.sessionId);
    const listed: any = await (await fresh.post(call(3, "notepad", { action: "list" }))).json();
    expect(listed.result.content[0].text).toBe("The note pad is empty.");
  } finally {
    await server.dispose();
  }
  // Captured, not printed: the restart's warning, and nothing else.
  expect(unexplained(server.logs(), { reports: [ALARM_RESCHEDULED, ALARM_OVERDUE] })).toEqual([]);
});

/** The default idle TTL here: these sessions must not end while a test runs. */
describe("on a running server with persistent storage", () => {
  let server: Server;
  beforeAll(async () => {
    server = (await startServer({ entry: ENTRY, vars: { LOG_LEVEL: "error" }, persistDir: await persistDir() })) as Server;
  });
  afterAll(() => server?.dispose());

  // 2025-11-25 opens the POST's stream at once with a priming event; 2025-06-18 has none, so the
  // response's headers wait for something to send: both must still end.
  for (const version of ["2025-11-25", "2025-06-18"]) {
    describe(`at ${version}`, () => {
      it("a cancelled Streamable POST still gets an HTTP response", async () => {
        const session = await openStreamableSession(server.url, version);
        const answer = answeredWithin(ANSWER_BOUND_MS, session.post(call(1, "wait", { ms: 30_000, label: "cancelled" })), "the cancelled POST");
        await sleep(RUNNING_MS);
        const cancelled = await session.post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "the test stopped waiting" } });
        expect(cancelled.status, await cancelled.text()).toBe(202);
        const { status, body } = await answer;
        expect(status, body).toBe(200);
        expect(body).not.toContain("waited 30000 ms");
      });

      it("a Streamable POST running when its session is deleted still gets an HTTP response", async () => {
        const session = await openStreamableSession(server.url, version);
        const answer = answeredWithin(ANSWER_BOUND_MS, session.post(call(1, "wait", { ms: 30_000, label: "deleted" })), "the POST of the deleted session");
        await sleep(RUNNING_MS);
        const deleted = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: session.headers });
        expect(deleted.status, await deleted.text()).toBe(204);
        const { status, body } = await answer;
        expect(status, body).toBe(200);
        expect(body).not.toContain("waited 30000 ms");
        const after = await session.post({ jsonrpc: "2.0", id: 2, method: "ping" });
        expect(after.status, await after.text()).toBe(404);
      });
    });
  }

  it("a long non-Latin-1 method and a progress-then-large reply survive Deno KV's value limit", async () => {
    // 2025-03-26: the last revision with batches. "—" (U+2014) makes Deno KV count the whole string at two bytes per unit.
    const session = await openStreamableSession(server.url, "2025-03-26");
    const batch = await session.post([
      { jsonrpc: "2.0", id: 1, method: `${"a".repeat(40_000)}—` },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);
    expect(batch.status).toBe(200);
    const replies = await messagesOf(batch);
    expect(replies.find((m) => m.id === 1)).toMatchObject({ jsonrpc: "2.0", error: { code: -32601 } });
    expect(replies.find((m) => m.id === 2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });

    const blob = await session.post(call(3, "blob", { bytes: 40_000, last: "—", progress: true }, { progressToken: "large" }));
    expect(blob.status).toBe(200);
    expect(blob.headers.get("content-type")).toContain("text/event-stream");
    const stream = new SseReader(blob.body!);
    expect(await stream.nextMessage()).toMatchObject({ method: "notifications/progress", params: { progressToken: "large", progress: 0 } });
    const reply = await stream.nextMessage();
    expect(reply.id).toBe(3);
    const text: string = reply.result.content[0].text;
    expect(text.length).toBe(40_001);
    expect(text.endsWith("—")).toBe(true);
    await stream.cancel();

    const health = await fetch(`${server.url}/health`);
    expect(health.status, await health.text()).toBe(200);
  });
});
