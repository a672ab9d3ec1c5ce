import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { Logger } from "../log/Logger.ts";
import { META } from "../protocol/metaKeys.ts";
import { defineServer, tool } from "../server/defineServer.ts";
import { homes as homesCapability } from "../../capabilities/homes/homes.ts";
import { probeTools } from "../testing/testKit.ts";
import { serveMessages } from "./serveMessages.ts";
import type { RequestOrigin, Telemetry } from "../telemetry/Telemetry.ts";

/** A session over an in-memory message stream: what a WebSocket adapter hands `serveMessages`. */
function start(env: Record<string, unknown> = {}) {
  const signals: AbortSignal[] = [];
  const logs: string[] = [];
  const incoming = new TransformStream<string | McpError, string | McpError>();
  const outgoing = new TransformStream<string, string>();
  const done = serveMessages({
    server: defineServer({
      name: "messages-test",
      version: "1",
      listChanged: { tools: true },
      tools: [
        ...probeTools(signals),
        tool({
          name: "chatty",
          description: "Reports progress, then answers",
          input: z.object({}),
          handler: async (_args, ctx) => {
            await ctx.progress(1, 2, "half");
            return "done";
          },
        }),
        tool({
          name: "confirm",
          description: "Asks the user to confirm",
          input: z.object({}),
          handler: async (_args, ctx) => {
            const answer = await ctx.elicit({ message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } });
            return `answer: ${JSON.stringify(answer.content)}`;
          },
        }),
        tool({
          name: "announce",
          description: "Says the tool list changed",
          input: z.object({}),
          handler: async (_args, ctx) => {
            await ctx.listChanged("tools");
            return "announced";
          },
        }),
      ],
    }),
    kind: "test-socket",
    messages: { readable: incoming.readable, writable: outgoing.writable },
    env,
    logger: new Logger("debug", {}, (line) => void logs.push(line)),
  });
  const writer = incoming.writable.getWriter();
  const reader = outgoing.readable.getReader();
  const peer = {
    signals,
    logs,
    done,
    send: (message: object | string | McpError) => writer.write(typeof message === "object" && !(message instanceof McpError) ? JSON.stringify(message) : message),
    /** The next message written, as its raw chunk and parsed. */
    async next(): Promise<{ raw: string; message: any }> {
      const { done, value } = await reader.read();
      if (done) throw new Error("the output ended");
      return { raw: value, message: JSON.parse(value) };
    },
    close: () => writer.close(),
  };
  running.push(peer);
  return peer;
}

const running: { close(): Promise<void>; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const peer of running.splice(0)) {
    await peer.close().catch(() => {});
    await peer.done;
  }
});

describe("serveMessages", () => {
  it("writes one whole JSON text per chunk, with no framing of its own", async () => {
    const peer = start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "a\nb" } } });
    const { raw, message } = await peer.next();
    expect(raw).toBe('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\\nb"}],"isError":false}}');
    expect(message.id).toBe(1);
    expect(peer.logs.some((line) => line.includes('"session.open"') && line.includes('"test-socket"'))).toBe(true);
  });

  it("answers an McpError the adapter passed in place of a message, and goes on", async () => {
    const peer = start();
    await peer.send(McpError.invalidRequest("Binary frames carry no message"));
    expect((await peer.next()).message).toEqual({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.InvalidRequest, message: "Binary frames carry no message" } });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await peer.next()).message).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("refuses a message over MAX_BODY_BYTES, counting UTF-8 bytes, not characters", async () => {
    const peer = start({ MAX_BODY_BYTES: "120" });
    // 60 characters of "é" are 120 bytes: with the envelope, over the limit though under it in length.
    await peer.send({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "é".repeat(60) } });
    expect((await peer.next()).message).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: "Message exceeds the limit of 120 bytes (MAX_BODY_BYTES)" },
    });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await peer.next()).message.id).toBe(2);
  });

  it("refuses requests that do not fit the queue budget with -32000 naming the request", async () => {
    const peer = start({ MAX_QUEUE_MESSAGES: "2" });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", arguments: {} } });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "hang", arguments: {} } });
    await peer.send({ jsonrpc: "2.0", id: 3, method: "ping" });
    const refusal = (await peer.next()).message;
    expect(refusal).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: ErrorCode.ServerBusy } });
    expect(refusal.error.message).toMatch(/queue is full/);
  });

  it("ends the session when the client's stream ends: handlers aborted, promise resolved", async () => {
    const peer = start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", arguments: {} } });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await peer.next()).message.id).toBe(2);
    await peer.close();
    await peer.done;
    expect(peer.signals[0]?.aborted).toBe(true);
    expect(peer.logs.some((line) => line.includes('"session.end"') && line.includes('"input-closed"'))).toBe(true);
  });
});

/** A 2026-07-28 request: metadata inline, as stdio carries it (no header layer). */
const modern = (id: number | string, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: { elicitation: {} }, ...meta } },
});

describe("serveMessages: protocol 2026-07-28 on the same stream", () => {
  it("answers server/discover with no initialize, then tools/call, each reply decorated for the revision", async () => {
    const peer = start();
    await peer.send(modern(1, "server/discover"));
    const discover = (await peer.next()).message;
    expect(discover.id).toBe(1);
    expect(discover.result.supportedVersions).toContain("2026-07-28");
    expect(discover.result.resultType).toBe("complete");
    await peer.send(modern(2, "tools/call", { name: "echo", arguments: { text: "hi" } }));
    const call = (await peer.next()).message;
    expect(call).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "hi" }], resultType: "complete", _meta: { [META.serverInfo]: { name: "messages-test" } } } });
  });

  it("answers a stuck handler at the deadline with the same error in both eras", async () => {
    const peer = start({ HANDLER_TIMEOUT_MS: "50" });
    await peer.send(modern("stateless", "tools/call", { name: "hang", arguments: {} }));
    await peer.send({ jsonrpc: "2.0", id: "session", method: "tools/call", params: { name: "hang", arguments: {} } });
    const replies = [(await peer.next()).message, (await peer.next()).message].sort((a, b) => a.id.localeCompare(b.id));
    const error = { code: ErrorCode.InternalError, message: "Request tools/call did not finish within 50 ms (HANDLER_TIMEOUT_MS) and was aborted", data: { timeoutMs: 50 } };
    expect(replies).toEqual([
      { jsonrpc: "2.0", id: "session", error },
      { jsonrpc: "2.0", id: "stateless", error },
    ]);
    expect(peer.signals.map((signal) => signal.aborted)).toEqual([true, true]);
  });

  it("sends a request's progress before its reply, on the one stream", async () => {
    const peer = start();
    await peer.send(modern(1, "tools/call", { name: "chatty", arguments: {} }, { progressToken: "p" }));
    expect((await peer.next()).message).toEqual({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1, total: 2, message: "half" } });
    expect((await peer.next()).message).toMatchObject({ id: 1, result: { content: [{ text: "done" }] } });
  });

  it("asks for input with an InputRequiredResult, never a request to the client, and completes on the retry", async () => {
    const peer = start();
    await peer.send(modern(1, "tools/call", { name: "confirm", arguments: {} }));
    const first = (await peer.next()).message;
    expect(first.id).toBe(1);
    expect(first.result.resultType).toBe("input_required");
    const [key, ask] = Object.entries(first.result.inputRequests)[0] as [string, { method: string }];
    expect(ask.method).toBe("elicitation/create");
    await peer.send(
      modern(2, "tools/call", { name: "confirm", arguments: {}, requestState: first.result.requestState, inputResponses: { [key]: { action: "accept", content: { ok: true } } } }),
    );
    expect((await peer.next()).message).toMatchObject({ id: 2, result: { resultType: "complete", content: [{ text: 'answer: {"ok":true}' }] } });
  });

  it("cancels a request on notifications/cancelled: the handler aborts and nothing more is sent for it", async () => {
    const peer = start();
    await peer.send(modern(1, "tools/call", { name: "hang", arguments: {} }));
    await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    await peer.send(modern(2, "tools/list"));
    expect((await peer.next()).message.id).toBe(2);
    expect(peer.signals[0]?.aborted).toBe(true);
  });

  it("tags listen notifications with the subscription id; a change made by another request reaches it", async () => {
    const peer = start();
    await peer.send(modern("L", "subscriptions/listen", { notifications: { toolsListChanged: true } }));
    expect((await peer.next()).message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [META.subscriptionId]: "L" }, notifications: { toolsListChanged: true } },
    });
    await peer.send(modern(1, "tools/call", { name: "announce", arguments: {} }));
    const seen = [(await peer.next()).message, (await peer.next()).message];
    expect(seen).toContainEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [META.subscriptionId]: "L" } } });
    expect(seen.find((m) => m.id === 1)?.result.content[0].text).toBe("announced");
  });

  it("frees a cancelled listen's room: ten listens opened and cancelled under a budget of two, then a call still fits", async () => {
    const peer = start({ MAX_QUEUE_MESSAGES: "2" });
    for (let i = 0; i < 10; i++) {
      // Every other one honors nothing: it must still end when cancelled.
      await peer.send(modern(`L${i}`, "subscriptions/listen", { notifications: i % 2 ? {} : { toolsListChanged: true } }));
      expect((await peer.next()).message.method).toBe("notifications/subscriptions/acknowledged");
      await peer.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: `L${i}` } });
    }
    await peer.send(modern(1, "tools/call", { name: "announce", arguments: {} }));
    // No listener hears the change, and the call is answered, not refused.
    expect((await peer.next()).message).toMatchObject({ id: 1, result: { content: [{ text: "announced" }] } });
  });

  it("answers errors in this revision's terms: -32601 for initialize with 2026 _meta, -32602 for missing capabilities, no batches", async () => {
    const peer = start();
    await peer.send(modern(1, "initialize"));
    expect((await peer.next()).message).toMatchObject({ id: 1, error: { code: ErrorCode.MethodNotFound } });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: { [META.protocolVersion]: "2026-07-28" } } });
    expect((await peer.next()).message).toMatchObject({ id: 2, error: { code: ErrorCode.InvalidParams } });
    await peer.send(JSON.stringify([modern(3, "tools/list"), modern(4, "tools/list")]));
    expect((await peer.next()).message).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/no JSON-RPC batches/) } });
  });
});


describe("serveMessages: generated garbage, every era on one stream", () => {
  it("answers 400 generated chunks with JSON-RPC only, never an internal error, and the stream goes on", async () => {
    const peer = start({ MAX_BODY_BYTES: "4096" });
    const out: any[] = [];
    // Read everything the server writes, as a client must, so its queue never stalls the test.
    const reading = (async () => {
      for (;;) out.push((await peer.next()).message);
    })().catch(() => {});

    // A seeded generator (mulberry32), so a failure reproduces.
    let seed = 0x5eed;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const values = [undefined, null, true, 0, -1, 1e308, "", "x", "2026-07-28", [], {}, { a: { b: {} } }];
    const metas = [
      { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} },
      { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: pick(values), [META.logLevel]: pick(["debug", "loud", 3]) },
      { [META.protocolVersion]: pick(values), [META.clientCapabilities]: {} },
      { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {}, progressToken: pick(values) },
      undefined,
      [],
    ];
    const methods = ["ping", "initialize", "tools/list", "tools/call", "server/discover", "subscriptions/listen", "notifications/cancelled", "logging/setLevel", "resources/read", "", 5];
    const message = () => ({
      jsonrpc: rand() < 0.9 ? "2.0" : pick(["1.0", 2, undefined]),
      id: rand() < 0.8 ? Math.floor(rand() * 1e6) : pick(["a", -1, 1.5, null, {}, undefined]),
      method: pick(methods),
      params: pick([
        pick(values),
        { name: pick(["echo", "chatty", "confirm", "announce", "nope", 7]), arguments: pick([{ text: "t" }, {}, null, "x"]), _meta: pick(metas) },
        { name: "confirm", arguments: {}, requestState: pick(["a.b", "..", "x".repeat(500), 5]), inputResponses: pick(values), _meta: pick(metas) },
        { notifications: pick([{ toolsListChanged: true }, { resourceSubscriptions: "x" }, null]), _meta: pick(metas) },
        { requestId: pick([1, 2, "a", {}]), protocolVersion: pick(["2025-11-25", "2026-07-28", 1]), capabilities: {}, clientInfo: { name: "f", version: "1" } },
      ]),
    });
    const chunk = (): string | McpError => {
      // Half of them well-formed messages with hostile content; the rest broken at the framing.
      switch (Math.floor(rand() * 8)) {
        case 0:
          return String.fromCharCode(...Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * 0xffff)));
        case 1:
          return JSON.stringify(Array.from({ length: 1 + Math.floor(rand() * 3) }, message));
        case 2:
          return JSON.stringify(message()).slice(0, Math.floor(rand() * 60));
        case 3:
          return rand() < 0.5 ? "x".repeat(5_000) : McpError.invalidRequest("unframeable");
        default: {
          const one = message();
          const meta = (one.params as { _meta?: unknown } | undefined)?._meta;
          if (typeof one.id === "number" && typeof meta === "object" && meta !== null && META.protocolVersion in meta) modernIds.add(one.id);
          return JSON.stringify(one);
        }
      }
    };
    /** Ids of the single requests that carried 2026-07-28 `_meta`: answered outside the session. */
    const modernIds = new Set<number>();
    for (let i = 0; i < 400; i++) await peer.send(chunk());

    await peer.send(modern("last-modern", "server/discover"));
    await peer.send({ jsonrpc: "2.0", id: "last-session", method: "ping" });
    await expect.poll(() => out.filter((m) => m.id === "last-modern" || m.id === "last-session").length, { timeout: 5_000 }).toBe(2);
    // The garbage reached past the framing into both eras: some served, much refused.
    const answered = out.filter((m) => typeof m.id === "number");
    expect(answered.filter((m) => modernIds.has(m.id)).length).toBeGreaterThan(20);
    expect(answered.filter((m) => !modernIds.has(m.id)).length).toBeGreaterThan(20);
    expect(out.filter((m) => "result" in m).length).toBeGreaterThan(20);
    expect(out.filter((m) => "error" in m).length).toBeGreaterThan(100);
    for (const m of out) {
      expect(m.jsonrpc).toBe("2.0");
      expect("result" in m || "error" in m || "method" in m).toBe(true);
      expect(m.error?.code).not.toBe(ErrorCode.InternalError);
    }
    expect(peer.logs.filter((line) => line.includes('"internal.error"'))).toEqual([]);
    await peer.close();
    await peer.done;
    await reading;
  });
});

describe("serveMessages: homes", () => {
  it("refuses to start a server whose definitions keep state per signed-in user: a message stream has no sign-in", async () => {
    const server = defineServer({ use: [homesCapability()],
      name: "users",
      version: "1",
      tools: [tool({ name: "mine", description: "", input: z.object({}), home: "user", handler: async (_args, ctx) => String(await ctx.storage.get("x")) })],
    });
    const messages = { readable: new ReadableStream<string>(), writable: new WritableStream<string>() };
    await expect(serveMessages({ server, messages })).rejects.toThrow(/this message stream has no signed-in user: configure `authorization`, or keep that state under a handle/);
  });
});

describe("serveMessages: the network its requests' spans name", () => {
  /** The origins a stream of `kind` gives its request spans, for one tools/list. */
  async function originsOf(kind: string, network?: RequestOrigin) {
    const origins: RequestOrigin[] = [];
    const telemetry: Telemetry = { request: (_request, origin) => (origins.push(origin), { traceparent: "00-".padEnd(55, "0"), end: () => {} }), flush: async () => {} };
    const incoming = new TransformStream<string, string>();
    const outgoing = new TransformStream<string, string>();
    const server = defineServer({ name: "network", version: "1", tools: [tool({ name: "echo", description: "Echoes", input: z.object({}), handler: async () => "echo" })] });
    const done = serveMessages({ server, kind, ...(network && { network }), telemetry, messages: { readable: incoming.readable, writable: outgoing.writable } });
    const writer = incoming.writable.getWriter();
    const reader = outgoing.readable.getReader();
    const meta = { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} };
    await writer.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }));
    await reader.read();
    await writer.close();
    await done;
    return origins.map(({ transport, protocol }) => ({ transport, protocol }));
  }

  it("is a WebSocket over TCP for kind websocket, a pipe for stdio, HTTP otherwise, unless the caller says", async () => {
    expect(await originsOf("websocket")).toEqual([{ transport: "tcp", protocol: "websocket" }]);
    expect(await originsOf("stdio")).toEqual([{ transport: "pipe", protocol: undefined }]);
    expect(await originsOf("test-socket")).toEqual([{ transport: "tcp", protocol: "http" }]);
    expect(await originsOf("test-socket", { transport: "tcp", protocol: "websocket" })).toEqual([{ transport: "tcp", protocol: "websocket" }]);
  });
});
