import { afterEach, describe, it, expect } from "vitest";
import { z } from "zod";
import { probeTools } from "../testing/testKit.ts";
import { DEFAULT_CONFIG, type Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from "../jsonrpc/messages.ts";
import { Logger } from "../log/Logger.ts";
import { logId } from "../log/logId.ts";
import { tool } from "../server/defineServer.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { Session, type SessionDeps } from "./Session.ts";
import { checkRecordSize } from "./SessionRecord.ts";
import { SingleStreamTransport } from "../transport/SingleStreamTransport.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const SESSION_ID = "0123456789abcdef0123456789abcdef";

/** Lets pending promise callbacks (handlers, replies, teardown) run. */
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

const request = (id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
const callTool = (id: RequestId, name: string, extra: Record<string, unknown> = {}) => request(id, "tools/call", { name, arguments: {}, ...extra });
const cancelled = (requestId: RequestId): JsonRpcMessage => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "user" } });

/** A handler that never settles by itself: once aborted it runs `late` (what a careless handler does next), then rejects with the reason. */
const afterAbort = (signal: AbortSignal, late: () => Promise<void>) =>
  new Promise<never>((_resolve, reject) => {
    signal.addEventListener("abort", async () => {
      await new Promise((r) => setTimeout(r, 5));
      await late();
      reject(signal.reason);
    });
  });

/** Delivers a batch as a route would, with its text's size. */
const deliver = (session: Session<SingleStreamTransport<Uint8Array>>, messages: JsonRpcMessage[]) => session.transport.deliver(messages, JSON.stringify(messages).length);

const sessions: Session[] = [];
afterEach(async () => {
  // Ending closes any open stream, which clears its keepalive timer.
  for (const session of sessions.splice(0)) if (!session.ended) await session.end("test over");
});

/** A fresh session on MemoryStorage, with tools that let a test see and steer handlers. */
async function setup(overrides: Partial<Config> = {}) {
  const signals: AbortSignal[] = [];
  const lateAttempts: string[] = [];
  const server = new CompiledServer({
    name: "session-test",
    version: "1",
    tools: [
      ...probeTools(signals),
      tool({
        name: "lingering",
        description: "Waits for its abort, then still tries to report progress and log",
        input: z.object({}),
        handler: (_args, ctx) =>
          afterAbort(ctx.signal, async () => {
            lateAttempts.push(await ctx.progress(1).then(() => "sent", (e) => `refused: ${String(e)}`));
            lateAttempts.push(await ctx.log("error", "late").then(() => "sent", (e) => `refused: ${String(e)}`));
          }),
      }),
      tool({
        name: "lateWrite",
        description: "Waits for its abort, then still tries to store something",
        input: z.object({}),
        handler: (_args, ctx) =>
          afterAbort(ctx.signal, async () => {
            lateAttempts.push(await ctx.storage!.put("late", 1).then(() => "stored", (e) => `refused: ${(e as Error).message}`));
          }),
      }),
      tool({
        name: "progress",
        description: "",
        input: z.object({}),
        handler: async (_args, ctx) => {
          await ctx.progress(1, 2, "half");
          return "done";
        },
      }),
      tool({
        name: "log",
        description: "",
        input: z.object({}),
        handler: async (_args, ctx) => {
          await ctx.log("debug", "too quiet");
          await ctx.log("warning", "hello", "weather");
          return "logged";
        },
      }),
    ],
  });
  const storage = new MemoryStorage();
  const wakeups: number[] = [];
  // Operator log lines at "error" and above, kept for assertions instead of printed.
  const logs: string[] = [];
  const deps: SessionDeps = {
    server,
    storage,
    config: { ...DEFAULT_CONFIG, ...overrides },
    logger: new Logger("error", {}, (line) => void logs.push(line)),
    env: {},
    scheduleWakeup: async (atMs) => void wakeups.push(atMs),
  };
  const session = await Session.create(SESSION_ID, SingleStreamTransport.sse, deps);
  sessions.push(session);
  return { session, storage, wakeups, signals, logs, deps, lateAttempts };
}

/** The session's SSE stream, read one event at a time; keepalive comments are skipped. */
async function open(session: Session<SingleStreamTransport<Uint8Array>>) {
  const reader = (await session.transport.open()).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  async function nextFrame(): Promise<string> {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = buffer.slice(0, end + 2);
        buffer = buffer.slice(end + 2);
        if (!frame.startsWith(":")) return frame;
        continue;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error("the SSE stream ended");
      buffer += decoder.decode(value, { stream: true });
    }
  }
  return {
    /** The next event, which must be a `message` event with one JSON data line. */
    async next(): Promise<any> {
      const frame = await nextFrame();
      const match = /^event: message\ndata: (.*)\n\n$/.exec(frame);
      if (!match) throw new Error(`not a message event: ${JSON.stringify(frame)}`);
      return JSON.parse(match[1]!);
    },
    cancel: () => reader.cancel(),
  };
}

describe("Session: initialize and persistence", () => {
  it("persists the negotiated version and client under the session key, and replies on the stream", async () => {
    const { session, storage } = await setup();
    const stream = await open(session);
    const clientInfo = { name: "inspector", version: "0.9" };
    const outcome = await deliver(session, [request(0, "initialize", { protocolVersion: "2025-03-26", clientInfo, capabilities: { roots: {} } })]);
    expect(outcome).toBeUndefined();
    expect(await storage.get("session")).toEqual({
      id: SESSION_ID,
      transport: "sse",
      createdAt: expect.any(Number),
      expiresAt: expect.any(Number),
      protocolVersion: "2025-03-26",
      clientInfo,
      clientCapabilities: { roots: {} },
    });
    expect(await stream.next()).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: "2025-03-26", capabilities: { logging: {}, tools: { listChanged: false } }, serverInfo: { name: "session-test", version: "1" } },
    });
  });

  it("refuses an oversized initialize with -32602, stores nothing of it, and holds no room afterwards", async () => {
    const { session, storage } = await setup({ maxQueueMessages: 5 });
    const stream = await open(session);
    const clientInfo = { name: "x".repeat(20_000), version: "1" };
    for (let id = 0; id < 10; id++) {
      expect(await deliver(session, [request(id, "initialize", { protocolVersion: "2025-03-26", clientInfo, capabilities: {} })])).toBeUndefined();
      const reply = await stream.next();
      expect(reply.id).toBe(id);
      expect(reply.error.code).toBe(ErrorCode.InvalidParams);
      expect(reply.error.message).toMatch(/clientInfo and capabilities take \d+ bytes as JSON; at most 16384 are accepted/);
    }
    expect((await storage.get<Record<string, unknown>>("session"))?.clientInfo).toBeUndefined();
    expect(session.record.clientInfo).toBeUndefined();
    expect(session.queueStats).toMatchObject({ reserved: 0, messages: 0 });
  });

  it("counts the record as storage does: two bytes per unit once any character is above U+00FF", () => {
    const record = { id: SESSION_ID, transport: "sse", createdAt: 0 };
    expect(() => checkRecordSize({ ...record, clientInfo: { name: "a".repeat(40_000), version: "1" } })).not.toThrow();
    expect(() => checkRecordSize({ ...record, clientInfo: { name: `${"a".repeat(40_000)}—`, version: "1" } })).toThrow(/over its limit of 49152/);
  });

  it("loads the stored session with the same record", async () => {
    const { session, deps } = await setup();
    await deliver(session, [request(1, "initialize", { protocolVersion: "2024-11-05", clientInfo: { name: "c", version: "1" } })]);
    const loaded = await Session.load(deps, [SingleStreamTransport.sse]);
    expect(loaded).toBeInstanceOf(Session);
    expect(loaded!.record).toEqual(session.record);
    expect(loaded!.record.protocolVersion).toBe("2024-11-05");
  });

  it("refuses to load a session stored with a transport this host does not serve, naming both", async () => {
    const { session, deps } = await setup();
    await deliver(session, [request(1, "initialize", { protocolVersion: "2024-11-05", clientInfo: { name: "c", version: "1" } })]);
    await expect(Session.load(deps, [SingleStreamTransport.messages("stdio")])).rejects.toThrow(
      `Session ${SESSION_ID} was stored with transport "sse", which this host does not serve (it serves stdio)`,
    );
  });

  it("loads nothing from empty storage", async () => {
    const { deps } = await setup();
    expect(await Session.load({ ...deps, storage: new MemoryStorage() }, [SingleStreamTransport.sse])).toBeUndefined();
  });
});

describe("Session: requests and replies", () => {
  it("answers a request on the stream as an `event: message`", async () => {
    const { session } = await setup();
    const stream = await open(session);
    expect(await deliver(session, [callTool("a", "echo", { arguments: { text: "hi" } })])).toBeUndefined();
    expect(await stream.next()).toEqual({ jsonrpc: "2.0", id: "a", result: { content: [{ type: "text", text: "hi" }], isError: false } });
  });

  it("answers protocol errors on the stream too", async () => {
    const { session } = await setup();
    const stream = await open(session);
    await deliver(session, [request(1, "no/such/method")]);
    expect(await stream.next()).toEqual({ jsonrpc: "2.0", id: 1, error: { code: ErrorCode.MethodNotFound, message: "Method not found: no/such/method" } });
  });

  it("refuses a second request with an id still in flight", async () => {
    const { session } = await setup();
    const stream = await open(session);
    await deliver(session, [callTool(7, "hang")]);
    await deliver(session, [request(7, "ping")]);
    const reply = await stream.next();
    expect(reply.id).toBe(7);
    expect(reply.error.code).toBe(ErrorCode.InvalidRequest);
    expect(reply.error.message).toContain("already in use");
  });

  it("replaces a reply over the queue's byte limit with a -32603 error", async () => {
    const { session, logs } = await setup({ maxQueueBytes: 512 });
    const stream = await open(session);
    await deliver(session, [callTool(1, "echo", { arguments: { text: "x".repeat(2_000) } })]);
    const reply = await stream.next();
    expect(reply.error.code).toBe(ErrorCode.InternalError);
    expect(reply.error.message).toContain("over the limit of 512 bytes a response may have here");
    expect(logs.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ level: "error", event: "rpc.reply-too-large", session: logId(SESSION_ID), id: 1, limit: 512 })]);
    // The session id is a bearer secret: no log line carries it.
    expect(logs.join("\n")).not.toContain(SESSION_ID);
  });

  it("counts a reply's bytes as the wire does (UTF-8), not its UTF-16 units", async () => {
    const { session } = await setup({ maxQueueBytes: 512 });
    const stream = await open(session);
    // 200 dashes: 200 units, 600 bytes.
    await deliver(session, [callTool(1, "echo", { arguments: { text: "—".repeat(200) } })]);
    const reply = await stream.next();
    expect(reply.error?.message).toMatch(/The response is \d+ bytes, over the limit of 512 bytes a response may have here/);
  });

  it("runs at most maxConcurrentHandlers at once; the rest wait their turn", async () => {
    const { session, signals } = await setup({ maxConcurrentHandlers: 1, handlerTimeoutMs: 50 });
    const stream = await open(session);
    await deliver(session, [callTool(1, "hang"), request(2, "ping")]);
    await flush();
    expect(session.queueStats.running).toBe(1);
    expect(signals).toHaveLength(1);
    // The ping only runs once the hanging call has timed out and freed the slot.
    expect((await stream.next()).id).toBe(1);
    expect(await stream.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });
});

describe("Session: backpressure", () => {
  it("counts admitted requests' bytes: large requests waiting for a slot are refused with 429 past the byte cap", async () => {
    const { session } = await setup({ maxQueueBytes: 65_536, maxQueueMessages: 1_000, maxConcurrentHandlers: 1 });
    await open(session);
    expect(await deliver(session, [callTool(0, "hang")])).toBeUndefined();
    const big = (id: number) => [callTool(id, "echo", { arguments: { text: "x".repeat(20_000) } })];
    const outcomes = [];
    for (let id = 1; id <= 10; id++) outcomes.push((await deliver(session, big(id)))?.error.status ?? 202);
    // Three 20 KB requests fit in 64 KiB beside the first; the rest wait for room.
    expect(outcomes).toEqual([202, 202, 202, 429, 429, 429, 429, 429, 429, 429]);
    expect(session.queueStats.reserved).toBe(4);
  });

  it("answers 429 with Retry-After and a JSON-RPC error once the queue caps are reached", async () => {
    const { session } = await setup({ maxQueueMessages: 2 });
    await open(session); // open but never read: replies pile up
    expect(await deliver(session, [request(1, "ping"), request(2, "ping")])).toBeUndefined();
    const outcome = await deliver(session, [request(3, "ping")]);
    expect(outcome?.error.status).toBe(429);
    expect(outcome?.error.headers).toEqual({ "retry-after": "1" });
    expect(outcome?.id).toBe(3);
    expect(outcome?.error.toJsonRpc()).toEqual({ code: ErrorCode.ServerBusy, message: expect.stringContaining("Session queue is full") });
  });

  it("refuses a batch that does not fit whole, with a null id, and still takes notifications", async () => {
    const { session } = await setup({ maxQueueMessages: 3 });
    await open(session);
    expect(await deliver(session, [request(1, "ping")])).toBeUndefined();
    const outcome = await deliver(session, [request(2, "ping"), request(3, "ping"), request(4, "ping")]);
    expect(outcome?.error.status).toBe(429);
    expect(outcome?.id).toBeNull();
    expect(session.queueStats.messages + session.queueStats.reserved).toBe(1);
    expect(await deliver(session, [{ jsonrpc: "2.0", method: "notifications/initialized" }])).toBeUndefined();
    // Two more fill the queue exactly.
    expect(await deliver(session, [request(2, "ping"), request(3, "ping")])).toBeUndefined();
  });

  it("answers every accepted request once the stream is read, and admits again after", async () => {
    const { session } = await setup({ maxQueueMessages: 5 });
    const stream = await open(session);
    const accepted: RequestId[] = [];
    for (let id = 1; id <= 8; id++) {
      const outcome = await deliver(session, [request(id, "ping")]);
      if (!outcome) accepted.push(id);
      else expect(outcome.error.status).toBe(429);
    }
    expect(accepted).toEqual([1, 2, 3, 4, 5]);
    const answered: RequestId[] = [];
    for (const _ of accepted) answered.push((await stream.next()).id);
    expect(answered.sort()).toEqual(accepted);
    expect(await deliver(session, [request(100, "ping")])).toBeUndefined();
    // The next event is the new reply: nothing was answered twice.
    expect((await stream.next()).id).toBe(100);
  });
});

describe("Session: cancellation, timeouts and teardown", () => {
  it("aborts a handler on notifications/cancelled and sends no response for it", async () => {
    const { session, signals } = await setup();
    const stream = await open(session);
    await deliver(session, [callTool(1, "hang")]);
    await flush();
    expect(signals).toHaveLength(1);
    await deliver(session, [cancelled(1)]);
    expect(signals[0]!.aborted).toBe(true);
    await deliver(session, [request(2, "ping")]);
    expect((await stream.next()).id).toBe(2);
    expect(session.queueStats).toMatchObject({ messages: 0, reserved: 0, running: 0 });
  });

  it("ignores a cancellation for an unknown request", async () => {
    const { session } = await setup();
    const stream = await open(session);
    expect(await deliver(session, [cancelled(99)])).toBeUndefined();
    await deliver(session, [request(1, "ping")]);
    expect((await stream.next()).id).toBe(1);
  });

  it("answers a handler that never settles with the deadline error after handlerTimeoutMs, and aborts it", async () => {
    const { session, signals } = await setup({ handlerTimeoutMs: 50 });
    const stream = await open(session);
    await deliver(session, [callTool(1, "hang")]);
    expect(await stream.next()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: ErrorCode.InternalError, message: "Request tools/call did not finish within 50 ms (HANDLER_TIMEOUT_MS) and was aborted", data: { timeoutMs: 50 } },
    });
    expect(signals[0]!.aborted).toBe(true);
    expect(session.queueStats).toMatchObject({ reserved: 0, running: 0 });
  });

  it("sends no progress or log notification for a request after it timed out (progress spec: they MUST stop)", async () => {
    const { session, lateAttempts } = await setup({ handlerTimeoutMs: 30 });
    const stream = await open(session);
    await deliver(session, [request("lvl", "logging/setLevel", { level: "debug" })]);
    expect((await stream.next()).id).toBe("lvl");
    await deliver(session, [callTool(1, "lingering", { _meta: { progressToken: "t" } })]);
    expect((await stream.next()).error.data).toEqual({ timeoutMs: 30 });
    await new Promise((r) => setTimeout(r, 40));
    expect(lateAttempts).toHaveLength(2);
    expect(lateAttempts.every((a) => a.startsWith("refused"))).toBe(true);
    // Nothing followed the reply: the next event is the answer to a fresh ping.
    await deliver(session, [request("after", "ping")]);
    expect(await stream.next()).toEqual({ jsonrpc: "2.0", id: "after", result: {} });
  });

  it("tears down on stream cancel: handlers (running and waiting) abort, the queue is released, the deadline counts from then", async () => {
    const ttl = 60_000;
    const { session, signals } = await setup({ maxConcurrentHandlers: 1, sessionIdleTtlMs: ttl });
    const stream = await open(session);
    await deliver(session, [callTool(1, "hang"), callTool(2, "hang")]);
    await flush();
    expect(signals).toHaveLength(1); // the second waits for the slot
    const before = Date.now();
    await stream.cancel();
    expect(signals[0]!.aborted).toBe(true);
    expect(session.expiresAt).toBeGreaterThanOrEqual(before + ttl);
    await flush();
    // The waiting call never ran its handler, and nothing is left holding room or a slot.
    expect(signals).toHaveLength(1);
    expect(session.queueStats).toEqual({ bytes: 0, messages: 0, reserved: 0, running: 0, streamOpen: false });
    expect(session.ended).toBe(false);
  });
});

describe("Session: streams and lifetime", () => {
  it("reports its stream as connected while open; a second open replaces the first, which ends, and aborts nothing", async () => {
    const { session, signals } = await setup();
    expect(session.transport.connected).toBe(false);
    const stream = await open(session);
    expect(session.transport.connected).toBe(true);
    await deliver(session, [callTool(1, "hang")]);
    await flush();
    const again = await open(session);
    await expect(stream.next()).rejects.toThrow("the SSE stream ended");
    expect(session.transport.connected).toBe(true);
    expect(signals[0]!.aborted).toBe(false);
    await deliver(session, [request(2, "ping")]);
    expect((await again.next()).id).toBe(2);
  });

  it("stores its deadline and arms the host's wakeup for it when created", async () => {
    const before = Date.now();
    const { session, storage, wakeups } = await setup({ sessionIdleTtlMs: 1_000 });
    const record = await storage.get<{ expiresAt: number }>("session");
    expect(record?.expiresAt).toBe(session.expiresAt);
    expect(session.expiresAt).toBeGreaterThanOrEqual(before + 1_000);
    expect(session.expiresAt).toBeLessThanOrEqual(Date.now() + 1_500);
    expect(wakeups).toEqual([session.expiresAt]);
  });

  it("stays alive before its deadline and re-arms the wakeup for it", async () => {
    const { session, storage, wakeups } = await setup({ sessionIdleTtlMs: 1_000 });
    expect(await session.wakeup(session.expiresAt - 1)).toBe("alive");
    expect(wakeups.at(-1)).toBe(session.expiresAt);
    expect(await storage.get("session")).toBeDefined();
  });

  it("stays alive past its deadline while a stream is open, pushing the stored deadline", async () => {
    const { session, storage } = await setup({ sessionIdleTtlMs: 1_000 });
    await open(session);
    const later = session.expiresAt + 10_000;
    expect(await session.wakeup(later)).toBe("alive");
    expect(session.expiresAt).toBeGreaterThanOrEqual(later + 1_000);
    expect((await storage.get<{ expiresAt: number }>("session"))?.expiresAt).toBe(session.expiresAt);
  });

  it("stores a pushed deadline only once less than one TTL is left", async () => {
    const { session, storage } = await setup({ sessionIdleTtlMs: 1_000 });
    await open(session); // connected: every wakeup counts as activity
    let writes = 0;
    const put = storage.put.bind(storage);
    storage.put = (key, value) => (key === "session" && writes++, put(key, value));
    const first = session.expiresAt;
    await session.wakeup(first - 1_200); // 1.2 TTL left: nothing to store
    expect(writes).toBe(0);
    await session.wakeup(first - 900); // less than one TTL left: pushed to 1.5 TTL ahead
    expect(writes).toBe(1);
    expect(session.expiresAt).toBe(first - 900 + 1_500);
  });

  it("deletes every key when woken after its deadline, and refuses what a handler writes afterwards", async () => {
    const { session, storage } = await setup({ sessionIdleTtlMs: 1_000 });
    await storage.put("data:note", "kept by a handler");
    expect(await session.wakeup(session.expiresAt)).toBe("ended");
    expect(session.ended).toBe(true);
    expect(await storage.list("")).toEqual(new Map());
    expect(await storage.get("session")).toBeUndefined();
  });

  it("refuses what a handler still running writes once the session ended: nothing survives", async () => {
    const { session, storage, lateAttempts } = await setup();
    await deliver(session, [callTool(1, "lateWrite")]);
    await flush();
    await session.end("client-deleted");
    await new Promise((r) => setTimeout(r, 20));
    expect(lateAttempts).toEqual(["refused: This session has ended: nothing more is stored for it"]);
    expect(await storage.list("")).toEqual(new Map());
  });

  it("loads an expired session as none, wiping what it left (a host that missed its wakeup)", async () => {
    const { session, storage, deps } = await setup({ sessionIdleTtlMs: 1_000 });
    await storage.put("data:note", "left behind");
    expect(await Session.load(deps, [SingleStreamTransport.sse], session.expiresAt - 1)).toBeDefined();
    expect(await Session.load(deps, [SingleStreamTransport.sse], session.expiresAt + 1)).toBeUndefined();
    expect(await storage.list("")).toEqual(new Map());
  });
});

describe("Session: notifications from handlers", () => {
  it("sends progress only when the request carries _meta.progressToken", async () => {
    const { session } = await setup();
    const stream = await open(session);
    await deliver(session, [callTool(1, "progress")]);
    expect((await stream.next()).id).toBe(1);
    await deliver(session, [callTool(2, "progress", { _meta: { progressToken: "tok-2" } })]);
    expect(await stream.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "tok-2", progress: 1, total: 2, message: "half" },
    });
    expect((await stream.next()).id).toBe(2);
  });

  it("sends log messages only after logging/setLevel, at or above the level", async () => {
    const { session, storage } = await setup();
    const stream = await open(session);
    await deliver(session, [callTool(1, "log")]);
    expect(await stream.next()).toMatchObject({ id: 1, result: { content: [{ text: "logged" }] } });

    await deliver(session, [request(2, "logging/setLevel", { level: "info" })]);
    expect(await stream.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(await storage.get("session")).toMatchObject({ logLevel: "info" });

    await deliver(session, [callTool(3, "log")]);
    expect(await stream.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "warning", data: "hello", logger: "weather" },
    });
    expect((await stream.next()).id).toBe(3);
  });
});
