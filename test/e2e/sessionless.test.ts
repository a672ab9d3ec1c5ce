/**
 * 2025 requests without `Mcp-Session-Id`, as claude.ai sends them: it opens with `initialize` and
 * never echoes the id (`durable-mcp check`'s per-call probe does the same). What needs
 * no session is served (`sessionlessPost`); what does gets a 400 that says so. On every runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, call, initialize, postJson } from "../support/httpSession.ts";
import { messagesOf } from "../support/messagesOf.ts";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error" } });
});
afterAll(() => server?.dispose());

const VERSION = "2025-11-25";
/** What claude.ai sends after initialize: the version header, and no session id. */
const HEADERS = { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": VERSION };
const post = (body: unknown) => postJson(`${server.url}/mcp`, body, { headers: HEADERS });

describe("a 2025 client that never echoes Mcp-Session-Id", () => {
  it("initializes, then has notifications/initialized accepted and tools listed and called without the id", async () => {
    const opened = await postJson(`${server.url}/mcp`, initialize(0, VERSION), { headers: { "content-type": "application/json", accept: BOTH } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("mcp-session-id")).toMatch(/^[0-9a-f]{32}$/);
    await opened.body?.cancel();

    const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(initialized.status).toBe(202);
    const [listed] = await messagesOf(await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(listed.id).toBe(1);
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toContain("test_simple_text");
    // Worded for its own revision: no 2026-07-28 decorations.
    expect(listed.result.resultType).toBeUndefined();
    const [called] = await messagesOf(await post(call(2, "test_simple_text", {})));
    expect(called).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "This is a simple text response for testing." }], isError: false } });
    const [pinged] = await messagesOf(await post({ jsonrpc: "2.0", id: 3, method: "ping" }));
    expect(pinged).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
  });

  it("streams progress for a call that asked for it, then the result", async () => {
    const response = await post({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "p" } } });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const messages = await messagesOf(response);
    expect(messages.filter((m) => m.method === "notifications/progress").length).toBeGreaterThan(0);
    expect(messages.at(-1)).toMatchObject({ id: 4, result: { content: [{ type: "text" }] } });
  });

  it("refuses with 400 what needs a session: a subscription, a log level, a batch, a response", async () => {
    for (const [method, params] of [["resources/subscribe", { uri: "test://static-text" }], ["logging/setLevel", { level: "debug" }]] as const) {
      const response = await post({ jsonrpc: "2.0", id: 5, method, params });
      const [reply] = await messagesOf(response);
      expect(response.status, method).toBe(400);
      expect(reply.error.message).toMatch(/needs a session: send the Mcp-Session-Id that initialize returned/);
    }
    const batch = await postJson(`${server.url}/mcp`, [{ jsonrpc: "2.0", id: 6, method: "ping" }], { headers: { ...HEADERS, "mcp-protocol-version": "2025-03-26" } });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { message: string } }).error.message).toMatch(/Missing Mcp-Session-Id header; this message needs a session/);
    const response = await post({ jsonrpc: "2.0", id: 7, result: {} });
    expect(response.status).toBe(400);
    await response.body?.cancel();
  });

  it("answers a tool that asks the client for input with an error that names the missing session", async () => {
    const [reply] = await messagesOf(await post(call(8, "test_elicitation", { message: "Your name?" })));
    expect(reply.id).toBe(8);
    const text = reply.error?.message ?? reply.result?.content?.[0]?.text;
    expect(text).toMatch(/elicitation\/create needs a session/);
  });
});
