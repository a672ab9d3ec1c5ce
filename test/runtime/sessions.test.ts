/**
 * Sessions inside real workerd: one Durable Object per session, replies on their own stream,
 * state reloaded after eviction, teardown on disconnect (expiry: lifecycle.test.ts), cancellation,
 * handler deadline, concurrency cap, progress.
 */
import { env, evictDurableObject, listDurableObjectIds, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, closeSession, eventually, initialize, openSession, post, sessionStub, sleep } from "./helpers.ts";
import { SseReader } from "../support/SseReader.ts";

const stubOf = (sessionId: string) => sessionStub(sessionId);
const statsOf = (sessionId: string) => stubOf(sessionId).stats();
const stored = (sessionId: string, key: string) => runInDurableObject(stubOf(sessionId), (_i, state) => state.storage.get(key));

describe("legacy HTTP+SSE sessions", () => {
  it("opens with an endpoint event carrying a 128-bit session id", async () => {
    const session = await openSession();
    expect(session.endpoint).toMatch(/^\/message\?sessionId=[0-9a-f]{32}$/);
    await session.close();
  });

  it("answers GET /sse with the SSE headers", async () => {
    const response = await SELF.fetch(`${BASE}/sse`, { headers: { accept: "text/event-stream" } });
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    // Ended, not dropped: a dropped stream is found by the next keepalive, which workerd reports.
    const reader = new SseReader(response.body!);
    const sessionId = new URL((await reader.next()).data, BASE).searchParams.get("sessionId")!;
    await closeSession(sessionId, reader);
  });

  it("gives each session its own Durable Object and its own stream", async () => {
    const before = (await listDurableObjectIds(env.MCP_SESSION)).length;
    const sessions = await Promise.all([openSession(), openSession(), openSession()]);
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(3);
    expect((await listDurableObjectIds(env.MCP_SESSION)).length).toBe(before + 3);

    const statuses = await Promise.all(sessions.map((s, i) => s.post(call(7, "toUpperCase", { input: `session ${i}` }))));
    expect(statuses.map((r) => r.status)).toEqual([202, 202, 202]);
    for (const [i, s] of sessions.entries()) {
      const reply = await s.reader.nextMessage();
      expect(reply).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: `SESSION ${i}` }], isError: false } });
      await s.close();
    }
  });

  it("persists the negotiated state and reloads it after the object is evicted", async () => {
    const s = await openSession();
    await s.post(initialize(0, "2024-11-05"));
    expect((await s.reader.nextMessage()).result.protocolVersion).toBe("2024-11-05");
    await s.post(call(1, "notepad", { action: "add", text: "buy milk" }));
    await s.reader.nextMessage();
    expect(await stored(s.sessionId, "session")).toMatchObject({
      id: s.sessionId,
      transport: "sse",
      protocolVersion: "2024-11-05",
      clientInfo: { name: "Cline", version: "3.15.5" },
    });

    await s.reader.cancel();
    await eventually(async () => (await statsOf(s.sessionId))?.streamOpen === false);
    await evictDurableObject(stubOf(s.sessionId));

    // A fresh instance: it must rebuild the session from storage alone.
    const reopened = await SELF.fetch(`${BASE}/sse?sessionId=${s.sessionId}`);
    expect(reopened.status).toBe(200);
    const reader = new SseReader(reopened.body!);
    expect((await reader.next()).data).toBe(s.endpoint);
    await post(s.endpoint, call(2, "whoami", {}));
    const who = JSON.parse((await reader.nextMessage()).result.content[0].text);
    expect(who).toMatchObject({ session: s.sessionId, client: { protocolVersion: "2024-11-05", info: { name: "Cline", version: "3.15.5" } } });
    await post(s.endpoint, call(3, "notepad", { action: "list" }));
    expect((await reader.nextMessage()).result.content[0].text).toBe("1. buy milk");
    await closeSession(s.sessionId, reader);
  });

  it("sends a keepalive comment on an idle stream", async () => {
    const s = await openSession();
    await sleep(700); // KEEPALIVE_INTERVAL_MS is 250 in the test configuration
    await s.post({ jsonrpc: "2.0", id: 1, method: "ping" });
    await s.reader.nextMessage();
    expect(s.reader.comments).toBeGreaterThanOrEqual(1);
    await s.close();
  });

  it("lets a reconnecting client replace a stream it thinks is dead: the old one ends, nothing running is aborted", async () => {
    const s = await openSession();
    await s.post(call(1, "wait", { ms: 600, label: "kept" }));
    await eventually(async () => (await statsOf(s.sessionId))?.running === 1);
    const second = await SELF.fetch(`${BASE}/sse?sessionId=${s.sessionId}`);
    expect(second.status).toBe(200);
    const reader = new SseReader(second.body!);
    expect((await reader.next()).data).toBe(s.endpoint);
    await expect(s.reader.nextMessage(3_000)).rejects.toThrow("SSE stream ended");
    // The call made on the old stream is answered on the new one.
    expect((await reader.nextMessage(3_000)).result.content[0].text).toBe("waited 600 ms");
    expect(await stored(s.sessionId, "data:aborted:kept")).toBeUndefined();
    await closeSession(s.sessionId, reader);
  });

  it("tears down on disconnect: handlers aborted, queue released, expiry alarm set", async () => {
    const s = await openSession();
    await s.post(call(1, "wait", { ms: 60_000, label: "teardown" }));
    await eventually(async () => (await statsOf(s.sessionId))?.running === 1);
    await s.reader.cancel();
    expect(await eventually(() => stored(s.sessionId, "data:aborted:teardown"))).toBe("client disconnected");
    expect(await statsOf(s.sessionId)).toMatchObject({ streamOpen: false, running: 0, messages: 0, reserved: 0, bytes: 0 });
    const alarm = await runInDurableObject(stubOf(s.sessionId), (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now());
  });

  it("aborts a handler on notifications/cancelled and sends no response for it", async () => {
    const s = await openSession();
    await s.post(call("slow", "wait", { ms: 60_000, label: "cancel" }));
    await eventually(async () => (await statsOf(s.sessionId))?.running === 1);
    expect((await s.post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow", reason: "user" } })).status).toBe(202);
    expect(await eventually(() => stored(s.sessionId, "data:aborted:cancel"))).toBe("cancelled by the client");
    await s.post({ jsonrpc: "2.0", id: "after", method: "ping" });
    expect(await s.reader.nextMessage()).toEqual({ jsonrpc: "2.0", id: "after", result: {} });
    await s.close();
  });

  it("answers a stuck handler at the deadline with the one deadline error", async () => {
    const s = await openSession();
    await s.post(call(1, "wait", { ms: 60_000, label: "deadline" }));
    const reply = await s.reader.nextMessage(6_000);
    expect(reply.error).toEqual({ code: -32603, message: "Request tools/call did not finish within 2000 ms (HANDLER_TIMEOUT_MS) and was aborted", data: { timeoutMs: 2000 } });
    await s.close();
  });

  it("runs at most MAX_CONCURRENT_HANDLERS handlers at once and answers the rest in turn", async () => {
    const s = await openSession();
    for (let id = 1; id <= 6; id++) await s.post(call(id, "wait", { ms: 400, label: `c${id}` }));
    const stats = await statsOf(s.sessionId);
    expect(stats?.running).toBe(4); // MAX_CONCURRENT_HANDLERS in the test configuration
    expect(stats?.reserved).toBe(6);
    const ids = new Set<number>();
    while (ids.size < 6) ids.add((await s.reader.nextMessage()).id);
    expect([...ids].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    await s.close();
  });

  it("sends progress only when the request carries a progressToken", async () => {
    const s = await openSession();
    await s.post(call(1, "wait", { ms: 1 }, { progressToken: "p-1" }));
    expect(await s.reader.nextMessage()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p-1", progress: 0, total: 1, message: "started" },
    });
    expect((await s.reader.nextMessage()).id).toBe(1);
    await s.post(call(2, "wait", { ms: 1 }));
    expect((await s.reader.nextMessage()).id).toBe(2);
    await s.close();
  });
});
