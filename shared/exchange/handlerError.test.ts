/**
 * What an operator sees when a handler throws: one `handler.error` line at error level
 * with the stack, the method, the tool and the request's tag, secrets redacted; the definition's
 * `onError` called once with the same; the `rpc.out` line saying `isError`. Over a real message
 * stream (`serveMessages`), a 2025 session and a 2026-07-28 request alike.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Logger } from "../log/Logger.ts";
import { META } from "../protocol/metaKeys.ts";
import { defineServer, tool } from "../server/defineServer.ts";
import { prompt } from "../server/prompt.ts";
import type { HandlerErrorInfo } from "../definition/ServerOptions.ts";
import { serveMessages } from "../transport/serveMessages.ts";

const SECRET = "hunter2";

function start(onError?: (error: Error, info: HandlerErrorInfo) => void | Promise<void>) {
  const lines: string[] = [];
  const incoming = new TransformStream<string, string>();
  const outgoing = new TransformStream<string, string>();
  const done = serveMessages({
    server: defineServer({
      name: "failing",
      version: "1",
      onError,
      tools: [
        tool({
          name: "connect",
          description: "Throws with a secret in its message",
          input: z.object({}),
          handler: async () => {
            throw new Error(`database password is ${SECRET}`);
          },
        }),
        tool({ name: "fine", description: "Answers", input: z.object({}), handler: async () => "ok" }),
        tool({
          name: "confirm",
          description: "Asks the user first",
          input: z.object({}),
          handler: async (_args, ctx) => {
            const answer = await ctx.elicit({ message: "Sure?", requestedSchema: { type: "object", properties: {} } });
            return answer.action;
          },
        }),
      ],
      prompts: [
        prompt({
          name: "broken",
          description: "Throws a TypeError",
          get: async () => {
            throw new TypeError(`cannot read the api_key=${SECRET}`);
          },
        }),
      ],
    }),
    kind: "test",
    messages: { readable: incoming.readable as ReadableStream<string>, writable: outgoing.writable },
    logger: new Logger("info", {}, (line) => void lines.push(line)),
  });
  const writer = incoming.writable.getWriter();
  const reader = outgoing.readable.getReader();
  const peer = {
    lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    raw: lines,
    send: (message: object) => writer.write(JSON.stringify(message)),
    next: async () => JSON.parse((await reader.read()).value!) as any,
    stop: async () => {
      await writer.close();
      await done;
    },
  };
  open.push(peer);
  return peer;
}

const open: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const peer of open.splice(0)) await peer.stop().catch(() => {});
});

const MODERN_META = { [META.protocolVersion]: "2026-07-28", [META.clientInfo]: { name: "t", version: "1" }, [META.clientCapabilities]: {} };

describe("a handler that throws", () => {
  it("leaves one error line with its stack and no secret, and the client a tool error", async () => {
    const calls: [Error, HandlerErrorInfo][] = [];
    const peer = start((error, info) => void calls.push([error, info]));
    await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "connect", arguments: {}, _meta: MODERN_META } });
    const reply = await peer.next();
    // The model reads what went wrong (tools spec: a tool error, not a protocol error).
    expect(reply.result.isError).toBe(true);
    await peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "fine", arguments: {}, _meta: MODERN_META } });
    expect((await peer.next()).result.isError).toBe(false);

    const errors = peer.lines().filter((line) => line.level === "error");
    expect(errors).toHaveLength(1);
    const [line] = errors;
    expect(line).toMatchObject({ event: "handler.error", method: "tools/call", tool: "connect", id: "1", error: "Error", message: "database password is [redacted]" });
    expect((line!.stack as string[])[0]).toBe("Error: database password is [redacted]");
    expect((line!.stack as string[]).some((frame) => frame.includes("handlerError.test.ts"))).toBe(true);
    expect(peer.raw.join("\n")).not.toContain(SECRET);
    expect(peer.lines().find((l) => l.event === "rpc.out" && l.id === 1)).toMatchObject({ isError: true });
    expect(peer.lines().find((l) => l.event === "rpc.out" && l.id === 2)).not.toHaveProperty("isError");

    expect(calls).toHaveLength(1);
    const [error, info] = calls[0]!;
    expect(error.message).toBe("database password is [redacted]");
    expect(error.stack).not.toContain(SECRET);
    expect(info).toMatchObject({ method: "tools/call", tool: "connect", requestId: "1" });
  });

  it("logs a prompt's exception once, answered -32603 with no detail, in a session", async () => {
    const peer = start();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    await peer.next();
    await peer.send({ jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "broken" } });
    expect((await peer.next()).error).toEqual({ code: -32603, message: "Internal error" });
    const errors = peer.lines().filter((line) => line.level === "error");
    expect(errors).toEqual([expect.objectContaining({ event: "handler.error", method: "prompts/get", error: "TypeError", message: "cannot read the api_key=[redacted]", session: expect.stringMatching(/^[0-9a-f]{12}$/) })]);
    expect(peer.raw.join("\n")).not.toContain(SECRET);
  });

  it("reports nothing for control flow: an ask waiting for the client's answer is not a failure", async () => {
    const calls: unknown[] = [];
    const peer = start((error) => void calls.push(error));
    const meta = { ...MODERN_META, [META.clientCapabilities]: { elicitation: {} } };
    await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "confirm", arguments: {}, _meta: meta } });
    expect((await peer.next()).result.resultType).toBe("input_required");
    expect(peer.lines().filter((line) => line.level === "error")).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("survives an onError that throws or rejects, saying so at warning level", async () => {
    for (const hook of [() => { throw new Error("tracker down"); }, async () => Promise.reject(new Error("tracker down"))]) {
      const peer = start(hook);
      await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "connect", arguments: {}, _meta: MODERN_META } });
      expect((await peer.next()).result.isError).toBe(true);
      await peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "fine", arguments: {}, _meta: MODERN_META } });
      await peer.next();
      expect(peer.lines()).toContainEqual(expect.objectContaining({ level: "warning", event: "onError.failed", message: "Error: tracker down" }));
    }
  });
});
