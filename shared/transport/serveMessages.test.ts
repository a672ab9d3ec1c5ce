import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { Logger } from "../log/Logger.ts";
import { defineServer } from "../server/defineServer.ts";
import { probeTools } from "../server/testKit.ts";
import { serveMessages } from "./serveMessages.ts";

/** A session over an in-memory message stream: what a WebSocket adapter hands `serveMessages`. */
function start(env: Record<string, unknown> = {}) {
  const signals: AbortSignal[] = [];
  const logs: string[] = [];
  const incoming = new TransformStream<string | McpError, string | McpError>();
  const outgoing = new TransformStream<string, string>();
  const done = serveMessages({
    server: defineServer({ name: "messages-test", version: "1", tools: probeTools(signals) }),
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
