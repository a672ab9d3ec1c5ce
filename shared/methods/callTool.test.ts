import { describe, it, expect } from "vitest";
import { z } from "zod";
import { McpError } from "../errors/McpError.ts";
import { callTool, toolError } from "./callTool.ts";
import { tool } from "../server/defineServer.ts";
import { stubContext } from "../testing/testKit.ts";
import type { ToolDefinition } from "../definition/ToolDefinition.ts";

/** A handler's context with no session behind it; progress and log calls are recorded. */
function recordingContext(signal = new AbortController().signal) {
  const calls = { progress: [] as unknown[][], log: [] as unknown[][] };
  const ctx = stubContext(
    { GREETING: "hi" },
    {
      signal,
      requestId: "r-1",
      client: { protocolVersion: "2025-06-18", capabilities: {} },
      progress: async (...args) => void calls.progress.push(args),
      log: async (...args) => void calls.log.push(args),
    },
  );
  return { ctx, calls };
}

const untyped = (definition: ToolDefinition<any, any>) => definition as ToolDefinition;

describe("callTool", () => {
  it("hands the handler its parsed arguments (defaults and transforms applied) and the context", async () => {
    const { ctx, calls } = recordingContext();
    const greet = tool({
      name: "greet",
      description: "Greets",
      input: z.object({ name: z.string().trim(), loud: z.boolean().default(false) }),
      handler: async ({ name, loud }, c) => {
        await c.progress(1, 2, "half");
        await c.log("info", { name });
        await c.storage?.put("last", name);
        const text = `${String(c.env.GREETING)} ${name} (${String(c.requestId)})`;
        return loud ? text.toUpperCase() : text;
      },
    });
    expect(await callTool(untyped(greet), { name: "  ada " }, ctx)).toEqual({ content: [{ type: "text", text: "hi ada (r-1)" }], isError: false });
    expect(calls.progress).toEqual([[1, 2, "half"]]);
    expect(calls.log).toEqual([["info", { name: "ada" }]]);
    expect(await ctx.storage?.get("last")).toBe("ada");
  });

  it("does not run the handler when the arguments are invalid", async () => {
    let ran = false;
    const strict = tool({
      name: "strict",
      description: "",
      input: z.strictObject({ count: z.number() }),
      handler: async () => {
        ran = true;
        return "ran";
      },
    });
    const result = await callTool(untyped(strict), { count: "3" }, recordingContext().ctx);
    expect(ran).toBe(false);
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("at count") });
  });

  it("passes a full CallToolResult through unchanged, isError and all", async () => {
    const full = { content: [{ type: "text" as const, text: "no such city" }], isError: true };
    const t = tool({ name: "t", description: "", input: z.object({}), handler: async () => full });
    expect(await callTool(untyped(t), {}, recordingContext().ctx)).toBe(full);
  });

  it("passes a CallToolResult through even when the tool has an output schema", async () => {
    const full = { content: [{ type: "text" as const, text: "upstream error" }], isError: true };
    const t = tool({ name: "t", description: "", input: z.object({}), output: z.object({ v: z.number() }), handler: async () => full });
    expect(await callTool(untyped(t), {}, recordingContext().ctx)).toBe(full);
  });

  it("sends the schema's parsed output as structuredContent", async () => {
    const t = tool({
      name: "t",
      description: "",
      input: z.object({}),
      output: z.object({ v: z.number() }),
      handler: async () => ({ v: 1, internal: "stripped" }) as { v: number },
    });
    expect(await callTool(untyped(t), {}, recordingContext().ctx)).toEqual({
      content: [{ type: "text", text: '{"v":1}' }],
      structuredContent: { v: 1 },
      isError: false,
    });
  });

  it("answers a return value that is neither text nor a result with an isError result", async () => {
    const t = untyped({ name: "t", description: "", input: z.object({}), handler: async () => 42 as never });
    expect(await callTool(t, {}, recordingContext().ctx)).toEqual(toolError("Tool t returned number; a handler returns a string or { content: [...] }"));
  });

  it("answers a thrown non-Error with its string form", async () => {
    const t = tool({
      name: "t",
      description: "",
      input: z.object({}),
      handler: async () => {
        throw "plain string";
      },
    });
    expect(await callTool(untyped(t), {}, recordingContext().ctx)).toEqual(toolError("Tool t failed: plain string"));
  });

  it("rethrows the abort reason when the handler fails because its request was aborted", async () => {
    const controller = new AbortController();
    // Not an McpError, so only the aborted signal can make it propagate.
    const reason = new Error("client disconnected");
    const t = tool({
      name: "t",
      description: "",
      input: z.object({}),
      handler: async (_args, c) => {
        controller.abort(reason);
        c.signal.throwIfAborted();
        return "unreachable";
      },
    });
    await expect(callTool(untyped(t), {}, recordingContext(controller.signal).ctx)).rejects.toBe(reason);
  });

  it("rethrows an McpError from the handler as is", async () => {
    const error = new McpError(400, -32602, "bad city");
    const t = tool({
      name: "t",
      description: "",
      input: z.object({}),
      handler: async () => {
        throw error;
      },
    });
    await expect(callTool(untyped(t), {}, recordingContext().ctx)).rejects.toBe(error);
  });
});
