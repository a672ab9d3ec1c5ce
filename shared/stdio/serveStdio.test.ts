import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { probeTools } from "../testing/testKit.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { Logger } from "../log/Logger.ts";
import { defineServer, tool } from "../server/defineServer.ts";
import { serveStdio } from "./serveStdio.ts";

const encoder = new TextEncoder();
const initialize = (capabilities: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "test", version: "1" } },
});

function testServer(signals: AbortSignal[]) {
  return defineServer({
    name: "stdio-test",
    version: "1",
    tools: [
      ...probeTools(signals),
      tool({
        name: "chatty",
        description: "Reports progress and logs, then answers",
        input: z.object({}),
        handler: async (_args, ctx) => {
          await ctx.progress(1, 2, "half");
          await ctx.log("warning", "careful");
          return "done";
        },
      }),
      tool({
        name: "ask",
        description: "Asks the user through the client",
        input: z.object({}),
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit({ message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } });
          return `hello ${String((answer.content as { name?: string } | undefined)?.name)}`;
        },
      }),
    ],
  });
}

/** A running `serveStdio` on in-memory pipes: write lines to it, read its lines, close its input. */
function start(env: Record<string, unknown> = {}, output?: WritableStream<Uint8Array>) {
  const signals: AbortSignal[] = [];
  const logs: string[] = [];
  const stdin = new TransformStream<Uint8Array, Uint8Array>();
  const stdout = new TransformStream<Uint8Array, Uint8Array>();
  const done = serveStdio({
    server: testServer(signals),
    input: stdin.readable,
    output: output ?? stdout.writable,
    env,
    logger: new Logger("debug", {}, (line) => void logs.push(line)),
  });
  const writer = stdin.writable.getWriter();
  const reader = stdout.readable.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  let buffer = "";
  const client = {
    signals,
    logs,
    done,
    /** Every chunk the server wrote, as text: each must be whole lines. */
    chunks,
    write: (text: string) => writer.write(encoder.encode(text)),
    send: (message: object) => writer.write(encoder.encode(JSON.stringify(message) + "\n")),
    /** The next line the server wrote, parsed; it must be JSON. */
    async next(): Promise<any> {
      for (;;) {
        const end = buffer.indexOf("\n");
        if (end >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          return JSON.parse(line);
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("the output ended");
        const text = decoder.decode(value, { stream: true });
        chunks.push(text);
        buffer += text;
      }
    },
    /** Resolves true once the output has ended with nothing more written. */
    async ended(): Promise<boolean> {
      const { done } = await reader.read();
      return done && buffer === "";
    },
    close: () => writer.close(),
  };
  running.push(client);
  return client;
}

const running: { close(): Promise<void>; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const client of running.splice(0)) {
    await client.close().catch(() => {});
    await client.done;
  }
});

describe("serveStdio: messages", () => {
  it("sends console.log, console.info and console.debug to console.error while it serves, and puts them back when it ends", async () => {
    const before = console.log;
    const client = start();
    expect([console.log, console.info, console.debug]).toEqual([console.error, console.error, console.error]);
    await client.close();
    await client.done;
    expect(console.log).toBe(before);
  });

  it("answers each request with one line of JSON", async () => {
    const client = start();
    await client.send(initialize());
    expect((await client.next()).result.serverInfo).toEqual({ name: "stdio-test", version: "1" });
    await client.send({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "echo", arguments: { text: "line one\nline two\u2028" } } });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: "a", result: { content: [{ type: "text", text: "line one\nline two\u2028" }], isError: false } });
    for (const chunk of client.chunks) expect(chunk.endsWith("\n")).toBe(true);
    expect(client.chunks.join("")).not.toMatch(/[\r\u2028]|event:|data:/);
  });

  it("sends progress and log notifications on the same stream, before the reply", async () => {
    const client = start();
    await client.send(initialize());
    await client.next();
    await client.send({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "info" } });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    await client.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "chatty", arguments: {}, _meta: { progressToken: "p" } } });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1, total: 2, message: "half" } });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data: "careful" } });
    expect((await client.next()).id).toBe(2);
  });

  it("sends a request to the client and routes its answer back to the handler", async () => {
    const client = start();
    await client.send(initialize({ elicitation: {} }));
    await client.next();
    await client.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "ask", arguments: {} } });
    const ask = await client.next();
    expect(ask.method).toBe("elicitation/create");
    await client.send({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { name: "Ada" } } });
    expect((await client.next()).result.content).toEqual([{ type: "text", text: "hello Ada" }]);
  });

  it("aborts a handler on notifications/cancelled and sends no reply for it", async () => {
    const client = start();
    await client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", arguments: {} } });
    await client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    await client.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(client.signals[0]?.aborted).toBe(true);
  });

  it("writes no keepalives: an idle stdout stays silent", async () => {
    const client = start({ KEEPALIVE_INTERVAL_MS: "5" });
    await new Promise((resolve) => setTimeout(resolve, 40));
    await client.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(client.chunks.join("")).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
  });
});

describe("serveStdio: malformed input", () => {
  it("answers a line that is not JSON with -32700 and id null, then goes on", async () => {
    const client = start();
    await client.write("this is not json\n");
    const error = await client.next();
    expect(error).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError } });
    await client.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(client.logs.some((line) => line.includes('"rpc.malformed"'))).toBe(true);
  });

  it("echoes the id of a request that is JSON but not a valid message", async () => {
    const client = start();
    await client.send({ jsonrpc: "1.0", id: 9, method: "ping" });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 9, error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: the "jsonrpc" member must be exactly "2.0"' } });
    await client.write("[]\n");
    expect((await client.next()).error.code).toBe(ErrorCode.InvalidRequest);
  });

  it("skips a line over MAX_BODY_BYTES with -32600, then goes on", async () => {
    const client = start({ MAX_BODY_BYTES: "100" });
    await client.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(200) } }) + "\n");
    expect(await client.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: "Message line exceeds the limit of 100 bytes (MAX_BODY_BYTES); it was skipped" },
    });
    await client.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect(await client.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("answers the requests of a batch one line each", async () => {
    const client = start();
    await client.write(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "ping" }]) + "\n");
    const ids = [(await client.next()).id, (await client.next()).id].sort();
    expect(ids).toEqual([1, 2]);
  });
});

describe("serveStdio: the end", () => {
  it("ends the session when the input closes: handlers aborted, output closed, promise resolved", async () => {
    const client = start();
    await client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", arguments: {} } });
    await client.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await client.next()).id).toBe(2);
    await client.close();
    await client.done;
    expect(client.signals[0]?.aborted).toBe(true);
    expect(await client.ended()).toBe(true);
    expect(client.logs.some((line) => line.includes('"session.end"') && line.includes('"input-closed"'))).toBe(true);
  });

  it("ends the session when the output fails (the client closed our stdout)", async () => {
    const broken = new WritableStream<Uint8Array>({
      write() {
        throw new Error("EPIPE");
      },
    });
    const client = start({}, broken);
    await client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", arguments: {} } });
    await client.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    // The input is never closed: the failed write alone ends the session.
    await client.done;
    expect(client.signals[0]?.aborted).toBe(true);
    expect(client.logs.some((line) => line.includes('"session.end"') && line.includes('"output-closed"'))).toBe(true);
  });
});
