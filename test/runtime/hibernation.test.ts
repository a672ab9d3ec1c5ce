/**
 * Long-lived client streams are held by the Worker and fed by the session object over a
 * hibernatable WebSocket (`durable/relayProtocol.ts`), so the object can be evicted — as
 * hibernation does — while its client stays connected. `evictDurableObject` replaces the
 * object's instance; the socket stays attached to the runtime, and the new instance finds it.
 * Messages produced after each eviction must reach the same open stream, once and in order.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SseReader } from "../support/SseReader.ts";
import { BASE, call, initialize, openSession, sessionStub } from "./helpers.ts";

const MCP = `${BASE}/mcp`;
const evict = (sessionId: string) => evictDurableObject(sessionStub(sessionId));

function postMcp(body: unknown, headers: Record<string, string>) {
  return SELF.fetch(MCP, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });
}

describe("a client's stream across evictions of its session object", () => {
  it("legacy HTTP+SSE: replies and notifications produced after each eviction arrive on the same stream, once, in order", async () => {
    const s = await openSession();
    await s.post(initialize(0, "2024-11-05"));
    expect((await s.reader.nextMessage()).id).toBe(0);

    await evict(s.sessionId);
    expect((await s.post(call(1, "toUpperCase", { input: "after one eviction" }))).status).toBe(202);
    expect(await s.reader.nextMessage()).toMatchObject({ id: 1, result: { content: [{ text: "AFTER ONE EVICTION" }] } });

    await evict(s.sessionId);
    // `unlock` switches a tool on for the session: the list change goes first, then the reply.
    await s.post(call(2, "unlock", {}));
    expect(await s.reader.nextMessage()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(await s.reader.nextMessage()).toMatchObject({ id: 2, result: { content: [{ text: "unlocked" }] } });

    await evict(s.sessionId);
    await s.post(call(3, "toUpperCase", { input: "three" }));
    await s.post(call(4, "toUpperCase", { input: "four" }));
    expect((await s.reader.nextMessage()).id).toBe(3);
    expect((await s.reader.nextMessage()).id).toBe(4);
    // Nothing more: no message was delivered twice.
    await expect(s.reader.nextMessage(500)).rejects.toThrow();
    await s.close();
  });

  it("Streamable HTTP: the GET stream stays open and numbered on; updates after each eviction arrive once", async () => {
    const init = await postMcp(initialize(0, "2025-11-25"), {});
    await init.json();
    const headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
    await (await postMcp({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "test://counter" } }, headers)).json();
    const events = new SseReader((await SELF.fetch(MCP, { headers: { ...headers, accept: "text/event-stream" } })).body!);
    const priming = await events.next();
    const base = priming.id!.replace(/\.0$/, "");

    for (let round = 1; round <= 3; round++) {
      await evict(headers["mcp-session-id"]);
      expect((await (await postMcp(call(10 + round, "touch", {}), headers)).json<any>()).result.content[0].text).toBe("touched");
      const update = await events.next();
      expect(update.id).toBe(`${base}.${round}`);
      expect(JSON.parse(update.data)).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://counter" } });
    }
    await expect(events.next(500)).rejects.toThrow();
    // Ended by the client's DELETE, through the evicted-and-woken object: the relayed stream ends
    // rather than being dropped (a dropped one is found gone by the Worker's next keepalive, which
    // workerd reports as "disconnected: pump canceled").
    expect((await SELF.fetch(MCP, { method: "DELETE", headers })).status).toBe(204);
    await expect(events.next()).rejects.toThrow("SSE stream ended");
  });

  it("keeps flow control across an eviction: more than one window of replies after it all arrive, each once", async () => {
    const s = await openSession();
    await evict(s.sessionId);
    // 8 × 48 KiB = 384 KiB: past the 256 KiB window, so the woken object must honour acknowledgements.
    for (let id = 1; id <= 8; id++) expect((await s.post(call(id, "blob", { bytes: 48 * 1024 }))).status).toBe(202);
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const reply = await s.reader.nextMessage(5_000);
      expect(reply.result.content[0].text).toHaveLength(48 * 1024);
      ids.push(reply.id);
    }
    expect(ids.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await s.close();
  });

  it("notices a client that left while its object was evicted, and tears down", async () => {
    const s = await openSession();
    await evict(s.sessionId);
    await s.reader.cancel();
    // The Worker's next keepalive write fails; it closes the socket; the woken object hears it.
    const deadline = Date.now() + 3_000;
    while ((await sessionStub(s.sessionId).stats())?.streamOpen !== false) {
      if (Date.now() > deadline) throw new Error("the object never heard that its client left");
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

describe("expiry while a client waits on a relayed stream", () => {
  it("keeps a session whose client is still connected when its alarm wakes the evicted object past the deadline", async () => {
    const s = await openSession();
    await s.post(initialize(0, "2024-11-05"));
    await s.reader.nextMessage();
    // As if the client had idled past the TTL while the object hibernated: the deadline is behind.
    await runInDurableObject(sessionStub(s.sessionId), async (_i, state) => {
      const record = await state.storage.get<Record<string, unknown>>("session");
      await state.storage.put("session", { ...record, expiresAt: Date.now() - 1 });
    });
    await evict(s.sessionId);
    await runDurableObjectAlarm(sessionStub(s.sessionId));
    // Still there, and still connected: a call is answered on the same stream.
    expect((await s.post(call(1, "toUpperCase", { input: "alive" }))).status).toBe(202);
    expect(await s.reader.nextMessage()).toMatchObject({ id: 1, result: { content: [{ text: "ALIVE" }] } });
    await s.close();
  });
});
