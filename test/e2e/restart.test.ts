/**
 * A server restarted with persistent storage keeps its Streamable HTTP sessions: the session id,
 * the negotiated version, handler data, and the stored events a client resumes from. On workerd
 * the storage is the Durable Objects' (miniflare persistence); on Deno, Deno KV (`--kv`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { SseReader } from "../support/SseReader.ts";

let dir: string;
afterAll(() => dir && rm(dir, { recursive: true, force: true }));

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

async function call(url: string, sessionId: string, id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } }),
  });
}

it("continues a session, its data and its stored events after a restart", { timeout: 120_000 }, async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-restart-"));
  let server = await startServer({ entry: "test/runtime/testWorker.ts", vars: { LOG_LEVEL: "error" }, persistDir: dir });
  const init = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "restarter", version: "1" } } }),
  });
  const sessionId = init.headers.get("mcp-session-id")!;
  expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
  await init.arrayBuffer();
  expect(((await (await call(server.url, sessionId, 1, "notepad", { action: "add", text: "kept across restarts" })).json()) as any).result.content[0].text).toBe(
    "Noted. The pad has 1 note(s).",
  );
  // A call whose stream carries events (progress, then the reply): they are stored for resumption.
  const streamed = new SseReader((await call(server.url, sessionId, 2, "wait", { ms: 1 }, { progressToken: "p" })).body!);
  const priming = await streamed.next();
  expect(JSON.parse((await streamed.next()).data).method).toBe("notifications/progress");
  expect(JSON.parse((await streamed.next()).data).id).toBe(2);
  await server.dispose();

  server = await startServer({ entry: "test/runtime/testWorker.ts", vars: { LOG_LEVEL: "error" }, persistDir: dir });
  try {
    const listed: any = await (await call(server.url, sessionId, 3, "notepad", { action: "list" })).json();
    expect(listed.result.content[0].text).toBe("1. kept across restarts");
    const who: any = await (await call(server.url, sessionId, 4, "whoami", {})).json();
    expect(JSON.parse(who.result.content[0].text)).toMatchObject({ session: sessionId, client: { protocolVersion: "2025-11-25", info: { name: "restarter" } } });
    const replay = new SseReader(
      (await fetch(`${server.url}/mcp`, { headers: { ...headers, "mcp-session-id": sessionId, accept: "text/event-stream", "last-event-id": priming.id! } })).body!,
    );
    expect(JSON.parse((await replay.next()).data).method).toBe("notifications/progress");
    expect(JSON.parse((await replay.next()).data).id).toBe(2);
    await replay.cancel();
  } finally {
    await server.dispose();
  }
});
