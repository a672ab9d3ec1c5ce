/**
 * Streamable HTTP on /mcp inside workerd: the raw wire (status codes, headers, JSON vs SSE),
 * resumption after a dropped stream with no lost reply, and state surviving eviction.
 */
import { evictDurableObject, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SseReader } from "../support/SseReader.ts";
import { BASE, call, initialize, sessionStub } from "./helpers.ts";

const MCP = `${BASE}/mcp`;
const BOTH = "application/json, text/event-stream";

function postMcp(body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(MCP, {
    method: "POST",
    headers: { "content-type": "application/json", accept: BOTH, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function open(version = "2025-11-25") {
  const response = await postMcp(initialize(0, version));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  const sessionId = response.headers.get("mcp-session-id")!;
  expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
  expect((await response.json<any>()).result.protocolVersion).toBe(version);
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": version };
  expect((await postMcp({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
  return { sessionId, headers, post: (body: unknown) => postMcp(body, headers) };
}

/**
 * Ends a session as a client that is done does (DELETE), and reads each of its open streams to
 * the end the server gives it. A stream the test merely dropped instead would be found gone by the
 * Worker's next keepalive, which workerd reports ("disconnected: pump canceled"): tests whose
 * subject is a dropped stream drop it; the others end their session.
 */
async function endSession(s: { headers: Record<string, string> }, ...streams: SseReader[]) {
  expect((await SELF.fetch(MCP, { method: "DELETE", headers: s.headers })).status).toBe(204);
  for (const stream of streams) await expect(stream.next()).rejects.toThrow("SSE stream ended");
}

async function expectError(response: Response, status: number) {
  expect(response.status).toBe(status);
  const body = await response.json<any>();
  expect(body.jsonrpc).toBe("2.0");
  expect(typeof body.error.code).toBe("number");
  return body;
}

describe("Streamable HTTP wire", () => {
  it("answers a plain request with JSON, and a request whose handler sends progress first with SSE", async () => {
    const s = await open();
    const json = await s.post({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(json.headers.get("content-type")).toContain("application/json");
    expect(await json.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });

    const sse = await s.post(call(2, "wait", { ms: 1 }, { progressToken: "p" }));
    expect(sse.headers.get("content-type")).toContain("text/event-stream");
    const reader = new SseReader(sse.body!);
    const priming = await reader.next();
    expect(priming.data).toBe("");
    expect(priming.id).toMatch(/^[0-9a-f]{12}\.0$/);
    const progress = await reader.next();
    expect(JSON.parse(progress.data).method).toBe("notifications/progress");
    expect(progress.id).toBe(priming.id!.replace(/\.0$/, ".1"));
    const reply = await reader.next();
    expect(JSON.parse(reply.data)).toMatchObject({ id: 2, result: { content: [{ text: "waited 1 ms" }] } });
    await expect(reader.next(1_000)).rejects.toThrow("SSE stream ended"); // finished after its reply
  });

  it("refuses what the transport spec refuses", async () => {
    const s = await open();
    await expectError(await postMcp({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "test://counter" } }), 400); // needs a session, and has none
    await expectError(await postMcp({ jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": "f".repeat(32) }), 404);
    await expectError(await postMcp({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...s.headers, accept: "application/json" }), 406);
    await expectError(await postMcp({ jsonrpc: "2.0", id: 1, method: "ping" }, { ...s.headers, "mcp-protocol-version": "1999-01-01" }), 400);
    await expectError(await postMcp([{ jsonrpc: "2.0", id: 1, method: "ping" }], s.headers), 400); // no batches after 2025-03-26
    await expectError(await postMcp(initialize(), s.headers), 400); // initialize with a session id
    await expectError(await SELF.fetch(MCP, { method: "PUT" }), 405);
    expect((await SELF.fetch(MCP, { method: "PATCH" })).headers.get("allow")).toBe("GET, POST, DELETE");
    await expectError(await SELF.fetch(MCP, { headers: { accept: "text/event-stream" } }), 400); // GET without session
    await expectError(await SELF.fetch(MCP, { headers: { ...s.headers, accept: "application/json" } }), 406);
    await expectError(await postMcp(initialize(), { origin: "http://evil.test" }), 403);
  });

  it("accepts batches from 2025-03-26 clients, answering on one SSE stream", async () => {
    const s = await open("2025-03-26");
    const response = await s.post([
      { jsonrpc: "2.0", id: "a", method: "ping" },
      { jsonrpc: "2.0", id: "b", method: "ping" },
    ]);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = new SseReader(response.body!);
    const ids = [JSON.parse((await reader.next()).data).id, JSON.parse((await reader.next()).data).id];
    expect(ids.sort()).toEqual(["a", "b"]);
  });

  it("ends a session on DELETE: 204, then 404 for every use of its id", async () => {
    const s = await open();
    const deleted = await SELF.fetch(MCP, { method: "DELETE", headers: s.headers });
    expect(deleted.status).toBe(204);
    await expectError(await s.post({ jsonrpc: "2.0", id: 1, method: "ping" }), 404);
    await expectError(await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream" } }), 404);
    await expectError(await SELF.fetch(MCP, { method: "DELETE", headers: s.headers }), 404);
  });

  it("keeps one standalone GET stream: a second GET replaces the first, which ends", async () => {
    const s = await open();
    const first = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("text/event-stream");
    const old = new SseReader(first.body!);
    const priming = await old.next();
    const second = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream" } });
    expect(second.status).toBe(200);
    await expect(old.next(3_000)).rejects.toThrow("SSE stream ended");
    // The same stream, continued: its id is the first one's.
    const current = new SseReader(second.body!);
    expect((await current.next()).id).toBe(priming.id);
    await endSession(s, current);
  });
});

describe("resumability", () => {
  it("delivers a reply that completed while the client was disconnected, after Last-Event-ID, and nothing twice", async () => {
    const s = await open();
    const response = await s.post(call(1, "wait", { ms: 300 }, { progressToken: "t" }));
    const reader = new SseReader(response.body!);
    const priming = await reader.next();
    const progress = await reader.next();
    await reader.cancel(); // the connection drops mid-call; the handler goes on
    await new Promise((r) => setTimeout(r, 500)); // the reply is produced while nobody listens

    const resumed = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": progress.id! } });
    expect(resumed.status).toBe(200);
    const replay = new SseReader(resumed.body!);
    const reply = await replay.next();
    expect(JSON.parse(reply.data)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { content: [{ text: "waited 300 ms" }] } });
    await expect(replay.next(1_000)).rejects.toThrow("SSE stream ended");

    // From the priming id, everything after it comes again, in order, and only from that stream.
    const again = new SseReader((await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": priming.id! } })).body!);
    expect((await again.next()).id).toBe(progress.id);
    expect((await again.next()).id).toBe(reply.id);
  });

  it("replays nothing of another session's stream, and refuses a malformed Last-Event-ID", async () => {
    const a = await open();
    const b = await open();
    const response = await a.post(call(1, "wait", { ms: 1 }, { progressToken: "t" }));
    const id = (await new SseReader(response.body!).next()).id!;
    // Not a 404: that tells a client its own session is gone. A stream with nothing stored just ends.
    const foreign = await SELF.fetch(MCP, { headers: { ...b.headers, accept: "text/event-stream", "last-event-id": id } });
    expect(foreign.status).toBe(200);
    expect(await foreign.text()).toBe("");
    await expectError(await SELF.fetch(MCP, { headers: { ...b.headers, accept: "text/event-stream", "last-event-id": "nonsense" } }), 400);
  });

  it("resumes a standalone stream that sent nothing yet from its priming id after an eviction: live, not 404", async () => {
    const s = await open();
    await s.post({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "test://counter" } });
    const listening = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream" } });
    const first = new SseReader(listening.body!);
    const priming = await first.next();
    await first.cancel();
    await evictDurableObject(sessionStub(s.sessionId));
    const resumed = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": priming.id! } });
    expect(resumed.status).toBe(200);
    const events = new SseReader(resumed.body!);
    await s.post(call(2, "touch", {}));
    expect((await events.next()).id).toBe(priming.id!.replace(/\.0$/, ".1"));
    await endSession(s, events);
  });

  it("continues the standalone stream after an eviction: same stream, numbered on, new messages live", async () => {
    const s = await open();
    expect((await (await s.post({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "test://counter" } })).json<any>()).result).toEqual({});
    const listening = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream" } });
    const events = new SseReader(listening.body!);
    const priming = await events.next();
    await s.post(call(2, "touch", {}));
    const first = await events.next();
    expect(first.id).toBe(priming.id!.replace(/\.0$/, ".1"));
    await events.cancel();
    await evictDurableObject(sessionStub(s.sessionId));

    const resumed = new SseReader((await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": first.id! } })).body!);
    await s.post(call(3, "touch", {}));
    const next = await resumed.next();
    expect(next.id).toBe(priming.id!.replace(/\.0$/, ".2"));
    expect(JSON.parse(next.data)).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://counter" } });
    await endSession(s, resumed);
  });

  it("answers a request cut short by a restart with an error on its resumed stream, then ends it", async () => {
    const s = await open();
    // What a host killed mid-run leaves (evictDurableObject waits for running requests, so it is
    // written here): a streamed POST marked unfinished, its progress event stored, no reply.
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 0 } };
    await runInDurableObject(sessionStub(s.sessionId), async (_i, state) => {
      await state.storage.put("post:0123456789ab", [7]);
      await state.storage.put("ev:0123456789ab:0000000001", new TextEncoder().encode(`event: message\nid: 0123456789ab.1\ndata: ${JSON.stringify(progress)}\n\n`));
    });
    await evictDurableObject(sessionStub(s.sessionId));
    // The next use of the session reloads it, which settles the stream cut short.
    expect((await s.post({ jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(200);
    const replay = new SseReader((await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": "0123456789ab.1" } })).body!);
    const event = await replay.next();
    expect(event.id).toBe("0123456789ab.2");
    const reply = JSON.parse(event.data);
    expect(reply).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32603 } });
    expect(reply.error.message).toContain("restarted while this request was running");
    await expect(replay.next(1_000)).rejects.toThrow("SSE stream ended");
    const keys = await runInDurableObject(sessionStub(s.sessionId), async (_i, state) => [...(await state.storage.list({ prefix: "post:" })).keys()]);
    expect(keys).toEqual([]);
  });

  it("marks a streamed POST unfinished while it runs, and unmarks it when it finishes", async () => {
    const s = await open();
    const response = await s.post(call(1, "wait", { ms: 300 }, { progressToken: "t" }));
    const reader = new SseReader(response.body!);
    await reader.next();
    await reader.next(); // progress: the stream exists
    const marks = () => runInDurableObject(sessionStub(s.sessionId), async (_i, state) => (await state.storage.list({ prefix: "post:" })).size);
    expect(await marks()).toBe(1);
    await reader.next(); // the reply
    await expect(reader.next(1_000)).rejects.toThrow("SSE stream ended");
    expect(await marks()).toBe(0);
  });

  it("keeps a session, its negotiated state and its stored events across eviction", async () => {
    const s = await open();
    const response = await s.post(call(1, "wait", { ms: 1 }, { progressToken: "t" }));
    const reader = new SseReader(response.body!);
    const priming = await reader.next();
    await reader.next();
    await reader.next();
    await evictDurableObject(sessionStub(s.sessionId));

    const who = await (await s.post(call(2, "whoami", {}))).json<any>();
    expect(JSON.parse(who.result.content[0].text)).toMatchObject({ session: s.sessionId, client: { protocolVersion: "2025-11-25", info: { name: "Cline" } } });
    const replay = new SseReader((await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": priming.id! } })).body!);
    expect(JSON.parse((await replay.next()).data).method).toBe("notifications/progress");
    expect(JSON.parse((await replay.next()).data).id).toBe(1);
  });
});

describe("resource subscriptions", () => {
  it("sends notifications/resources/updated on the standalone stream to subscribers only", async () => {
    const s = await open();
    const listening = await SELF.fetch(MCP, { headers: { ...s.headers, accept: "text/event-stream" } });
    const events = new SseReader(listening.body!);
    expect((await events.next()).data).toBe(""); // priming

    await s.post(call(1, "touch", {})); // not subscribed yet: nothing is sent
    expect((await (await s.post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "test://counter" } })).json<any>()).result).toEqual({});
    await s.post(call(3, "touch", {}));
    const update = await events.next();
    expect(JSON.parse(update.data)).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://counter" } });
    expect(update.id).toMatch(/\.1$/); // the first event of the stream: the unsubscribed touch sent nothing

    await s.post({ jsonrpc: "2.0", id: 4, method: "resources/unsubscribe", params: { uri: "test://counter" } });
    await s.post(call(5, "touch", {}));
    await expect(events.next(500)).rejects.toThrow("No SSE event");
    await endSession(s, events);
  });
});

describe("per-session tool lists", () => {
  const toolNames = async (s: Awaited<ReturnType<typeof open>>, id: number) =>
    ((await (await s.post({ jsonrpc: "2.0", id, method: "tools/list" })).json<any>()).result.tools as { name: string }[]).map((t) => t.name);

  it("sends tools/list_changed on the switching request's stream, and keeps the switch across eviction for that session only", async () => {
    const s = await open();
    const other = await open();
    expect(await toolNames(s, 1)).not.toContain("vault");

    const response = await s.post(call(2, "unlock", {}));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = new SseReader(response.body!);
    expect((await reader.next()).data).toBe(""); // priming
    expect(JSON.parse((await reader.next()).data)).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(JSON.parse((await reader.next()).data).result.content[0].text).toBe("unlocked");

    // Switching to the state it is already in changes nothing, so nothing is announced.
    const again = await s.post(call(3, "unlock", {}));
    expect(again.headers.get("content-type")).toContain("application/json");
    expect((await again.json<any>()).result.content[0].text).toBe("unlocked");

    await evictDurableObject(sessionStub(s.sessionId));
    expect(await toolNames(s, 4)).toContain("vault");
    expect((await (await s.post(call(5, "vault", {}))).json<any>()).result.content[0].text).toBe("opened");
    expect(await toolNames(other, 1)).not.toContain("vault");
    expect((await (await other.post(call(2, "vault", {}))).json<any>()).error).toMatchObject({ code: -32602, message: "Unknown tool: vault" });
  });
});
