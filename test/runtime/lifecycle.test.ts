/**
 * The session lifecycle inside real workerd, with the object evicted between every step: expiry
 * is armed when a session is created (whatever its transport and whether or not it ever streams),
 * held in storage rather than memory, and ending a session — by its deadline or by DELETE —
 * leaves zero keys and no alarm, even when a handler still running tries to write afterwards.
 * SESSION_IDLE_TTL_MS is 3000 here, so a deadline lies 3–4.5 s after the last activity.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, eventually, initialize, openSession, sessionStub, sleep } from "./helpers.ts";

const MCP = `${BASE}/mcp`;

function postMcp(body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(MCP, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });
}

/** A Streamable HTTP session that only ever gets JSON replies. */
async function jsonSession() {
  const response = await postMcp(initialize(0, "2025-11-25"));
  expect(response.status).toBe(200);
  await response.json();
  const sessionId = response.headers.get("mcp-session-id")!;
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
  return { sessionId, headers, post: (body: unknown) => postMcp(body, headers) };
}

const evict = (sessionId: string) => evictDurableObject(sessionStub(sessionId));
const keys = (sessionId: string) => runInDurableObject(sessionStub(sessionId), async (_i, state) => [...(await state.storage.list()).keys()]);
const alarm = (sessionId: string) => runInDurableObject(sessionStub(sessionId), (_i, state) => state.storage.getAlarm());
const deadline = (sessionId: string) => runInDurableObject(sessionStub(sessionId), async (_i, state) => (await state.storage.get<{ expiresAt: number }>("session"))!.expiresAt);

/** Waits until the session's stored deadline has passed, then fires its alarm if it has not fired by itself. */
async function outlive(sessionId: string) {
  const at = await deadline(sessionId);
  await evict(sessionId);
  await sleep(Math.max(0, at - Date.now()) + 50);
  await runDurableObjectAlarm(sessionStub(sessionId));
}

describe("session lifecycle across evictions", () => {
  it("arms expiry for a session that only ever answers with JSON, and leaves nothing after it", async () => {
    const s = await jsonSession();
    await evict(s.sessionId);
    expect(await alarm(s.sessionId)).toBe(await deadline(s.sessionId));
    const noted = await s.post(call(1, "notepad", { action: "add", text: "kept until expiry" }));
    expect((await noted.json<any>()).result.content[0].text).toContain("1 note");
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual(expect.arrayContaining(["session", "data:notes"]));
    await outlive(s.sessionId);
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual([]);
    expect(await alarm(s.sessionId)).toBeNull();
    expect((await s.post({ jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(404);
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual([]);
  });

  it("expires every one of many JSON-only sessions (none is a permanent object)", async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => jsonSession()));
    const last = Math.max(...(await Promise.all(sessions.map((s) => deadline(s.sessionId)))));
    await sleep(Math.max(0, last - Date.now()) + 50);
    for (const s of sessions) await runDurableObjectAlarm(sessionStub(s.sessionId));
    const statuses = await Promise.all(sessions.map(async (s) => (await s.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status));
    expect(statuses).toEqual(sessions.map(() => 404));
    for (const s of sessions) expect(await keys(s.sessionId)).toEqual([]);
  });

  it("pushes a busy session's stored deadline, so an eviction does not shorten its life", async () => {
    const s = await jsonSession();
    const first = await deadline(s.sessionId);
    // Less than one TTL left: the next request stores a later deadline.
    await sleep(Math.max(0, first - Date.now() - 2_900));
    await evict(s.sessionId);
    expect((await s.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(200);
    await evict(s.sessionId);
    const pushed = await deadline(s.sessionId);
    expect(pushed).toBeGreaterThan(first);
    // The alarm set for the first deadline finds a later one and re-arms for it.
    await sleep(Math.max(0, first - Date.now()) + 50);
    await runDurableObjectAlarm(sessionStub(s.sessionId));
    expect(await keys(s.sessionId)).toContain("session");
    expect(await alarm(s.sessionId)).toBe(pushed);
    expect((await s.post({ jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(200);
  });

  it("ends a session whose object wakes after its deadline on a request, before answering it", async () => {
    const s = await jsonSession();
    const at = await deadline(s.sessionId);
    // Delete the alarm, as if the object had missed it: the next request must still find the session over.
    await runInDurableObject(sessionStub(s.sessionId), (_i, state) => state.storage.deleteAlarm());
    await evict(s.sessionId);
    await sleep(Math.max(0, at - Date.now()) + 50);
    expect((await s.post({ jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(404);
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual([]);
  });

  it("expires a legacy session whose stream closed, across evictions", async () => {
    const s = await openSession();
    await s.post(initialize(0, "2024-11-05"));
    await s.reader.nextMessage();
    await s.post(call(1, "notepad", { action: "add", text: "legacy" }));
    await s.reader.nextMessage();
    await s.reader.cancel();
    await eventually(async () => (await sessionStub(s.sessionId).stats())?.streamOpen === false);
    await outlive(s.sessionId);
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual([]);
    expect(await alarm(s.sessionId)).toBeNull();
  });

  it("ends a session on DELETE the same way: every key, its stored events and its alarm", async () => {
    const s = await jsonSession();
    await s.post(call(1, "notepad", { action: "add", text: "deleted with the session" }));
    // A streamed reply: its events are stored for resumption.
    const streamed = await s.post(call(2, "wait", { ms: 1 }, { progressToken: "p" }));
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    await streamed.text();
    await evict(s.sessionId);
    expect((await keys(s.sessionId)).some((key) => key.startsWith("ev:"))).toBe(true);
    expect((await SELF.fetch(MCP, { method: "DELETE", headers: s.headers })).status).toBe(204);
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual([]);
    expect(await alarm(s.sessionId)).toBeNull();
  });

  it("keeps nothing a handler still running writes after DELETE", async () => {
    const s = await jsonSession();
    // `wait` stores a note of its abort when aborted: after DELETE that write is refused.
    const pending = s.post(call(1, "wait", { ms: 60_000, label: "after-delete" }));
    await eventually(async () => (await sessionStub(s.sessionId).stats())?.running === 1);
    expect((await SELF.fetch(MCP, { method: "DELETE", headers: s.headers })).status).toBe(204);
    await (await pending).text();
    await sleep(100);
    await evict(s.sessionId);
    expect(await keys(s.sessionId)).toEqual([]);
    expect(await alarm(s.sessionId)).toBeNull();
  });

  it("answers a refused initialize without a session id and keeps no session for it", async () => {
    const oversized = initialize(0, "2025-11-25");
    oversized.params.clientInfo = { name: "x".repeat(20_000), version: "1" };
    const response = await postMcp(oversized);
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect((await response.json<any>()).error.code).toBe(-32602);
  });
});
