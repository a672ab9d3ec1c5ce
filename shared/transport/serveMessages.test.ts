import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { Logger } from "../log/Logger.ts";
import { META } from "../protocol/metaKeys.ts";
import { defineServer, tool } from "../server/defineServer.ts";
import { probeTools } from "../server/testKit.ts";
import { serveMessages } from "./serveMessages.ts";

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

