/**
 * 2025 sessions across processes with no affinity, on the `Fleet` contract kept in memory
 * (`MemoryFleetHub`): two routers, each with its own runtime and sessions, share one store's
 * storage, and a request for a session reaches its holder whichever router it lands on. Raw HTTP,
 * since the wire between the router and the relayed answer is what is under test; the same over
 * PostgreSQL and Deno KV, with SDK clients and real processes, is in test/postgres and test/deno.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { readConfig } from "../../shared/config/readConfig.ts";
import { processSessions } from "../../shared/host/processSessions.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { localRuntime } from "../../shared/runtime/localRuntime.ts";
import type { Store } from "../../shared/runtime/Store.ts";
import { createRouter } from "../../shared/routes/createRouter.ts";
import { compiledOf } from "../../shared/server/ServerDefinition.ts";
import { defineServer, tool } from "../../shared/server/defineServer.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { MemoryFleetHub } from "../support/memoryFleet.ts";
import { messagesOf } from "../support/messagesOf.ts";
import { SseReader } from "../support/SseReader.ts";

const BASE = "http://127.0.0.1:8787";
const VERSION = "2025-11-25";

let released: (() => void) | undefined;
const server = compiledOf(
  defineServer({
    name: "fleet",
    version: "1",
    tools: [
      tool({ name: "echo", description: "Echoes", input: z.object({ text: z.string() }), handler: async ({ text }) => text }),
      tool({
        name: "flood",
        description: "Reports progress many times over, each with a long message",
        input: z.object({ times: z.number(), bytes: z.number() }),
        handler: async ({ times, bytes }, ctx) => {
          for (let i = 1; i <= times; i++) await ctx.progress(i, times, "p".repeat(bytes));
          return "flooded";
        },
      }),
      tool({
        name: "wait",
        description: "Reports progress, then waits until the test lets it go",
        input: z.object({}),
        handler: async (_input, ctx) => {
          await ctx.progress(1, 2, "started");
          await new Promise<void>((resolve) => (released = resolve));
          return "let go";
        },
      }),
    ],
  }),
  "test",
);

type Handler = (request: Request) => Promise<Response>;
interface Process {
  handle: Handler;
  self: string;
}
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
  released = undefined;
});

/** Processes on one hub and one storage: each a router with its runtime and sessions. */
async function fleetOf(count: number, env: Record<string, string> = {}, logLevel: "error" | "info" = "error"): Promise<{ hub: MemoryFleetHub; processes: { handle: Handler; self: string }[] }> {
  const hub = new MemoryFleetHub();
  const storages = new Map<string, MemoryStorage>();
  const processes = [];
  for (let i = 0; i < count; i++) {
    const fleet = hub.fleet();
    const store: Store = {
      description: "memory shared by the test's processes",
      durable: true,
      storageFor: (id) => storages.get(id) ?? (storages.set(id, new MemoryStorage()), storages.get(id)!),
      sessionIds: async () => storages.keys(),
      fleet: () => fleet,
      async close() {},
    };
    const config = readConfig(env);
    const runtime = localRuntime(server, { env, config, logger: new Logger(logLevel), store });
    const sessions = processSessions(runtime);
    await sessions.restoreStored();
    closers.push(() => sessions.close(), () => runtime.close());
    const route = createRouter<Record<string, string>>(server, () => ({ ...runtime, sessions }));
    processes.push({ handle: (request: Request) => route(request, {}), self: fleet.self });
  }
  return { hub, processes };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (id: number) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "t", version: "1" } } });
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
const callTool = (id: number, name: string, args: unknown, meta?: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });

async function streamableSession(handle: Handler): Promise<Record<string, string>> {
  const opened = await handle(post("/mcp", initialize(1)));
  expect(opened.status).toBe(200);
  const sessionId = opened.headers.get("mcp-session-id")!;
  await opened.body?.cancel();
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": VERSION };
  expect((await handle(post("/mcp", initialized, headers))).status).toBe(202);
  return headers;
}

describe("FleetSessions: a 2025 session held by one process, reached through any", () => {
  it("HTTP+SSE: the stream opened on one process carries the replies to POSTs made on the other", async () => {
    const { processes, hub } = await fleetOf(2);
    const [a, b] = processes as [Process, Process];
    const stream = await a.handle(new Request(`${BASE}/sse`, { headers: { accept: "text/event-stream" } }));
    expect(stream.status).toBe(200);
    const events = new SseReader(stream.body!);
    const endpoint = await events.next();
    expect(endpoint.event).toBe("endpoint");
    const sessionId = new URL(endpoint.data, BASE).searchParams.get("sessionId") ?? "";
    expect(hub.holders.get(sessionId)).toBe(a.self);

    expect((await b.handle(post(endpoint.data, initialize(1)))).status).toBe(202);
    expect(await nextMessage(events)).toMatchObject({ id: 1, result: { protocolVersion: VERSION } });
    expect((await b.handle(post(endpoint.data, initialized))).status).toBe(202);
    expect((await b.handle(post(endpoint.data, callTool(2, "echo", { text: "through b" })))).status).toBe(202);
    expect(await nextMessage(events)).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "through b" }] } });
    // A body and a reply larger than one message between processes go in pieces, whole and in order.
    const large = "x".repeat(150_000) + "é".repeat(20_000);
    expect((await b.handle(post(endpoint.data, callTool(3, "echo", { text: large })))).status).toBe(202);
    expect(await nextMessage(events)).toMatchObject({ id: 3, result: { content: [{ type: "text", text: large }] } });
    // A malformed batch is refused by the process it reached, before any relay.
    const refused = await b.handle(new Request(`${BASE}${endpoint.data}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" }));
    expect(refused.status).toBe(400);
    await stream.body?.cancel().catch(() => {});
  });

  it("Streamable HTTP: calls, streams and the end of a session go to the process holding it", async () => {
    const { processes, hub } = await fleetOf(2);
    const [a, b] = processes as [Process, Process];
    const headers = await streamableSession(a.handle);
    const sessionId = headers["mcp-session-id"]!;
    expect(hub.holders.get(sessionId)).toBe(a.self);

    const called = await b.handle(post("/mcp", callTool(2, "echo", { text: "relayed" }), headers));
    expect(called.status).toBe(200);
    expect(await messagesOf(called)).toEqual([expect.objectContaining({ id: 2, result: expect.objectContaining({ content: [{ type: "text", text: "relayed" }] }) })]);

    // Progress first, then the result, relayed as a stream from the holder.
    const waiting = b.handle(post("/mcp", callTool(3, "wait", {}, { progressToken: "p" }), headers));
    const response = await waiting;
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = new SseReader(response.body!);
    expect(await nextMessage(events)).toMatchObject({ method: "notifications/progress", params: { progressToken: "p", message: "started" } });
    released!();
    expect(await nextMessage(events)).toMatchObject({ id: 3, result: { content: [{ type: "text", text: "let go" }] } });

    const standalone = await b.handle(new Request(`${BASE}/mcp`, { headers: { accept: "text/event-stream", ...headers } }));
    expect(standalone.status).toBe(200);
    expect(standalone.headers.get("content-type")).toContain("text/event-stream");
    await standalone.body?.cancel();

    const ended = await b.handle(new Request(`${BASE}/mcp`, { method: "DELETE", headers }));
    expect(ended.status).toBe(204);
    expect((await a.handle(post("/mcp", callTool(4, "echo", { text: "gone" }), headers))).status).toBe(404);
    // The holder let go of the session it ended; an unknown id holds nothing either.
    await until(() => !hub.holders.has(sessionId));
    expect([...hub.holders.values()]).toEqual([]);
  });

  it("a stream cut short on one process is resumed through the other with Last-Event-ID", async () => {
    const { processes } = await fleetOf(2);
    const [a, b] = processes as [Process, Process];
    const headers = await streamableSession(a.handle);
    const response = await a.handle(post("/mcp", callTool(8, "wait", {}, { progressToken: "r" }), headers));
    const events = new SseReader(response.body!);
    let progress;
    do progress = await events.next();
    while (progress.data === "");
    expect(JSON.parse(progress.data)).toMatchObject({ method: "notifications/progress" });
    // The client loses its connection; the call goes on, and its result is stored for resumption.
    await response.body?.cancel().catch(() => {});
    released!();
    const resumed = await b.handle(new Request(`${BASE}/mcp`, { headers: { accept: "text/event-stream", "last-event-id": progress.id!, ...headers } }));
    expect(resumed.status).toBe(200);
    expect(await nextMessage(new SseReader(resumed.body!))).toMatchObject({ id: 8, result: { content: [{ type: "text", text: "let go" }] } });
  });

  it("a cancellation posted to one process stops the call running on the other", async () => {
    const { processes } = await fleetOf(2);
    const [a, b] = processes as [Process, Process];
    const headers = await streamableSession(a.handle);
    const response = await a.handle(post("/mcp", callTool(5, "wait", {}, { progressToken: "c" }), headers));
    const events = new SseReader(response.body!);
    expect(await nextMessage(events)).toMatchObject({ method: "notifications/progress" });
    const cancelled = await b.handle(post("/mcp", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "changed my mind" } }, headers));
    expect(cancelled.status).toBe(202);
    // The cancelled request's stream ends without its result.
    await expect(nextMessage(events, 10_000)).rejects.toThrow(/ended/);
  });

  it("ends a relayed stream its client does not read, past the session's queue budget, and tells the holder", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    try {
      const { processes } = await fleetOf(2, { MAX_QUEUE_BYTES: String(64 * 1024) }, "info");
      const [a, b] = processes as [Process, Process];
      const headers = await streamableSession(a.handle);
      // 40 events of 4 KiB through b while nothing reads them: past 64 KiB unread, b ends the relay.
      const response = await b.handle(post("/mcp", callTool(7, "flood", { times: 40, bytes: 4096 }, { progressToken: "f" }), headers));
      await until(() => lines.some((line) => line.includes("fleet.relay-ended")));
      expect(JSON.parse(lines.find((line) => line.includes("fleet.relay-ended"))!)).toMatchObject({ reason: "its client read too slowly" });
      const events = new SseReader(response.body!);
      const seen: unknown[] = [];
      await expect(
        (async () => {
          for (;;) seen.push(await nextMessage(events));
        })(),
      ).rejects.toThrow();
      // The stream errors before its result, which the client gets by resuming from the stored events.
      expect(seen.some((message) => (message as { id?: number }).id === 7)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it("a holder that dies: the next request claims the session, loaded from the store", { timeout: 60_000 }, async () => {
    const { processes, hub } = await fleetOf(2);
    const [a, b] = processes as [Process, Process];
    const headers = await streamableSession(a.handle);
    hub.kill(a.self);
    const called = await b.handle(post("/mcp", callTool(6, "echo", { text: "after a died" }), headers));
    expect(called.status).toBe(200);
    expect(await messagesOf(called)).toEqual([expect.objectContaining({ id: 6, result: expect.objectContaining({ content: [{ type: "text", text: "after a died" }] }) })]);
    expect(hub.holders.get(headers["mcp-session-id"] ?? "")).toBe(b.self);
  });
});

/** The next event that carries a message: a stream's priming event (an id, no data) is skipped. */
async function nextMessage(events: SseReader, timeoutMs?: number): Promise<unknown> {
  for (;;) {
    const event = await events.next(timeoutMs);
    if (event.data !== "") return JSON.parse(event.data);
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
