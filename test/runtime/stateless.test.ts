/**
 * The 2026-07-28 path inside workerd: answered by the Worker without any session Durable Object,
 * GET and DELETE refused at once, and `subscriptions/listen` streams fed by the topic Durable
 * Objects over hibernatable sockets — released when the client leaves, kept across an eviction
 * of the topic object, and ended (not buffered) when the client stops reading.
 */
import { createExecutionContext, env, evictDurableObject, listDurableObjectIds, SELF } from "cloudflare:test";
import { defineServer, jsonSchema, resourceTemplate, tool, watch } from "durable-mcp";
import { createWorker } from "durable-mcp/cloudflare";
import { describe, expect, it } from "vitest";
import { MAX_URI_CHARS } from "../../shared/methods/resourceMethods.ts";
import { SseReader } from "../support/SseReader.ts";
import { BASE, eventually, postModern } from "./helpers.ts";

const MCP = `${BASE}/mcp`;
const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const post = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) => postModern(method, params, { headers });

const watchers = (topic: string) => env.MCP_WATCH!.get(env.MCP_WATCH!.idFromName(topic)).subscribers();

describe("stateless requests", () => {
  it("are answered without creating a session object, even when they carry an Mcp-Session-Id", async () => {
    const before = (await listDurableObjectIds(env.MCP_SESSION)).length;
    const listed = await post("tools/list", {}, { "mcp-session-id": "0".repeat(32) });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("mcp-session-id")).toBeNull();
    expect((await listed.json<any>()).result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const called = await post("tools/call", { name: "getScore", arguments: { name: "lisi" } }, { "mcp-name": "getScore" });
    expect((await called.json<any>()).result.content[0].text).toBe('"80.0"');
    expect((await listDurableObjectIds(env.MCP_SESSION)).length).toBe(before);
  });

  it("refuse GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await SELF.fetch(MCP, { method, headers: { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28" } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect((await response.json<any>()).error.code).toBe(-32600);
    }
  });

  it("answer a stuck handler at the deadline with 500 and the session's deadline error, word for word", async () => {
    // HANDLER_TIMEOUT_MS is 2000 in the runtime tests; sessions.test.ts expects this error on a session.
    const response = await post("tools/call", { name: "wait", arguments: { ms: 60_000, label: "stateless-deadline" } }, { "mcp-name": "wait" });
    expect(response.status).toBe(500);
    expect((await response.json<any>()).error).toEqual({
      code: -32603,
      message: "Request tools/call did not finish within 2000 ms (HANDLER_TIMEOUT_MS) and was aborted",
      data: { timeoutMs: 2000 },
    });
  });

  it("answer a handler that reports progress on its own SSE stream, without event ids", async () => {
    const response = await SELF.fetch(MCP, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "wait" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait", arguments: { ms: 1 }, _meta: { ...META, progressToken: "t" } } }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = new SseReader(response.body!);
    const progress = await reader.next();
    expect(progress.id).toBeUndefined();
    expect(JSON.parse(progress.data)).toMatchObject({ method: "notifications/progress", params: { progressToken: "t", progress: 0 } });
    expect(JSON.parse((await reader.next()).data)).toMatchObject({ id: 7, result: { resultType: "complete" } });
  });
});

describe("subscriptions/listen", () => {
  it("holds one subscriber per topic while the client listens, and none once it leaves", async () => {
    const response = await post("subscriptions/listen", { notifications: { toolsListChanged: true, resourceSubscriptions: ["test://counter"] } });
    const reader = new SseReader(response.body!);
    const ack = JSON.parse((await reader.next()).data);
    expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true, resourceSubscriptions: ["test://counter"] } } });
    expect(await watchers("tools")).toBe(1);
    expect(await watchers("resource:test://counter")).toBe(1);

    await post("tools/call", { name: "touch", arguments: {} }, { "mcp-name": "touch" });
    const update = JSON.parse((await reader.next()).data);
    expect(update).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "test://counter", _meta: { "io.modelcontextprotocol/subscriptionId": ack.params._meta["io.modelcontextprotocol/subscriptionId"] } },
    });

    await reader.cancel();
    // As with every stream workerd carries, the object learns of the cancellation at its next write.
    await post("tools/call", { name: "touch", arguments: {} }, { "mcp-name": "touch" });
    await post("tools/call", { name: "announce", arguments: {} }, { "mcp-name": "announce" });
    await eventually(async () => (await watchers("tools")) === 0 && (await watchers("resource:test://counter")) === 0);
  });

  it("keeps a listener's socket to its topic object across an eviction of that object", async () => {
    const response = await post("subscriptions/listen", { notifications: { toolsListChanged: true } });
    const reader = new SseReader(response.body!);
    expect(JSON.parse((await reader.next()).data).method).toBe("notifications/subscriptions/acknowledged");
    const topic = env.MCP_WATCH!.get(env.MCP_WATCH!.idFromName("tools"));
    for (let round = 0; round < 2; round++) {
      await evictDurableObject(topic);
      await post("tools/call", { name: "announce", arguments: {} }, { "mcp-name": "announce" });
      expect(JSON.parse((await reader.next()).data).method).toBe("notifications/tools/list_changed");
    }
    await reader.cancel();
  });

  it("ends a listener that stops reading instead of queueing for it without limit", async () => {
    const response = await post("subscriptions/listen", { notifications: { toolsListChanged: true } });
    const reader = new SseReader(response.body!);
    expect(JSON.parse((await reader.next()).data).method).toBe("notifications/subscriptions/acknowledged");
    const topic = env.MCP_WATCH!.get(env.MCP_WATCH!.idFromName("tools"));
    // The client reads nothing more. Each message is ~60 bytes: 2,000 exceed the 64 KiB bound the
    // runtime tests configure (MAX_QUEUE_BYTES) even after the listen channel's 20 messages.
    for (let i = 0; i < 2_000; i++) await topic.publish({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    // The Worker holding the listener ends it past the bound and closes its socket to the object.
    await eventually(async () => (await topic.subscribers()) === 0);
    // Reading again: what was queued within the bounds (at most 64 KiB in the Worker plus the
    // channel's 20), then the graceful end of the subscription.
    let last: any;
    let delivered = 0;
    for (; delivered < 2_000 && !last?.result; delivered++) last = JSON.parse((await reader.next()).data);
    expect(last).toMatchObject({ result: { resultType: "complete" } });
    expect(delivered - 1).toBeLessThan(65_536 / 60 + 20);
  });

  describe("of resources with any URI the server accepts", () => {
    // Every note://… URI is readable here, so any length and any characters a client sends get as
    // far as the topic object; the URI itself is the topic's name (`resource:<uri>`).
    const notes = defineServer({
      name: "long-uris",
      version: "1",
      // The watch objects carry each update across isolates: the test counts their listeners.
      use: [watch()],
      resourceTemplates: [resourceTemplate({ uriTemplate: "note://{name}", name: "note", read: async ({ name }) => String(name) })],
      tools: [
        tool({
          name: "touch",
          description: "Reports a note as updated",
          input: jsonSchema({ type: "object", properties: { uri: { type: "string" } }, required: ["uri"] }),
          handler: async ({ uri }, ctx) => {
            await ctx.resourceUpdated(String(uri));
            return "touched";
          },
        }),
      ],
    });
    const worker = createWorker(notes);
    const postTo = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      worker.fetch(
        new Request(MCP, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
        }),
        env,
        createExecutionContext(),
      );

    const longest = `note://${"a".repeat(MAX_URI_CHARS - "note://".length)}`;
    for (const [what, uri] of [
      [`${MAX_URI_CHARS} characters (MAX_URI_CHARS)`, longest],
      ["characters outside Latin-1", "note://ноты-€-✓"],
    ] as const) {
      it(`watches a URI of ${what}, and hears its updates`, async () => {
        const response = await postTo("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } });
        expect(response.status).toBe(200);
        const reader = new SseReader(response.body!);
        const ack = JSON.parse((await reader.next()).data);
        expect(ack.params.notifications).toEqual({ resourceSubscriptions: [uri] });
        expect(await watchers(`resource:${uri}`)).toBe(1);
        expect((await postTo("tools/call", { name: "touch", arguments: { uri } }, { "mcp-name": "touch" })).status).toBe(200);
        expect(JSON.parse((await reader.next()).data)).toMatchObject({ method: "notifications/resources/updated", params: { uri } });
        await reader.cancel();
      });
    }

    it("refuses a URI one character longer with 400 and -32602, pinning nothing", async () => {
      const response = await postTo("subscriptions/listen", { notifications: { resourceSubscriptions: [`${longest}a`] } });
      expect(response.status).toBe(400);
      const { error } = await response.json<any>();
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(`more than the limit of ${MAX_URI_CHARS}`);
    });
  });
});
