import { describe, it, expect } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { LATEST_PROTOCOL_VERSION } from "../protocol/versions.ts";
import { tool } from "./defineServer.ts";
import { prompt } from "./prompt.ts";
import { resource } from "./resource.ts";
import { call, mcpError } from "../testing/testKit.ts";
import { CompiledServer } from "./CompiledServer.ts";

const echo = tool({
  name: "echo",
  title: "Echo",
  description: "Echo text",
  input: z.strictObject({ text: z.string(), times: z.number().int().optional() }),
  annotations: { readOnlyHint: true },
  handler: async ({ text, times }) => text.repeat(times ?? 1),
});

const server = new CompiledServer({
  name: "test-server",
  version: "1.2.3",
  instructions: "Use echo.",
  tools: [
    echo,
    tool({
      name: "sum",
      description: "Add numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.object({ sum: z.number() }),
      handler: async ({ a, b }) => ({ sum: a + b }),
    }),
    tool({
      name: "wrongShape",
      description: "Returns a value its output schema refuses",
      input: z.object({}),
      output: z.object({ sum: z.number() }),
      handler: async () => ({ sum: "three" }) as never,
    }),
    tool({
      name: "fails",
      description: "Throws",
      input: z.object({}),
      handler: async () => {
        throw new Error("the upstream API is down");
      },
    }),
    tool({
      name: "refuses",
      description: "Throws a protocol error",
      input: z.object({}),
      handler: async () => {
        throw new McpError(403, ErrorCode.InvalidRequest, "not allowed");
      },
    }),
  ],
});

describe("CompiledServer.initialize", () => {
  it("echoes a supported version and describes the server", () => {
    const { result, negotiated } = server.initialize({
      protocolVersion: "2024-11-05",
      capabilities: { roots: {} },
      clientInfo: { name: "client", version: "0.1" },
    });
    expect(result).toEqual({
      protocolVersion: "2024-11-05",
      capabilities: { logging: {}, tools: { listChanged: false } },
      serverInfo: { name: "test-server", version: "1.2.3" },
      instructions: "Use echo.",
    });
    expect(negotiated).toEqual({
      protocolVersion: "2024-11-05",
      clientInfo: { name: "client", version: "0.1" },
      clientCapabilities: { roots: {} },
    });
  });

  it("answers an unknown version with the latest", () => {
    const { result, negotiated } = server.initialize({ protocolVersion: "1999-01-01" });
    expect(result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(negotiated).toEqual({ protocolVersion: LATEST_PROTOCOL_VERSION });
  });

  it("ignores malformed clientInfo and capabilities", () => {
    const { negotiated } = server.initialize({ protocolVersion: "2025-06-18", clientInfo: { name: "x" }, capabilities: [] });
    expect(negotiated).toEqual({ protocolVersion: "2025-06-18" });
  });

  it("advertises every feature the definition has, and only those", () => {
    const full = new CompiledServer({
      name: "full",
      version: "1",
      tools: [echo],
      resources: [resource({ uri: "x://y", name: "y", read: async () => "" })],
      prompts: [prompt({ name: "p", get: async () => [] })],
    });
    expect(full.initialize({}).result.capabilities).toEqual({
      logging: {},
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
    });
    expect(new CompiledServer({ name: "p", version: "1", prompts: [prompt({ name: "p", get: async () => [] })] }).capabilities()).toEqual({
      logging: {},
      prompts: { listChanged: false },
      completions: {},
    });
  });

  it("hands out a fresh capabilities object each time", () => {
    const first = server.capabilities() as { tools: { listChanged: boolean } };
    first.tools.listChanged = true;
    expect(server.capabilities()).toEqual({ logging: {}, tools: { listChanged: false } });
  });

  it("advertises tools only when there are some", () => {
    const bare = new CompiledServer({ name: "bare", version: "1", title: "Bare" });
    const { result } = bare.initialize({});
    expect(result.capabilities).toEqual({ logging: {} });
    expect(result.serverInfo).toEqual({ name: "bare", version: "1", title: "Bare" });
    expect(result).not.toHaveProperty("instructions");
  });
});

describe("CompiledServer tools/list", () => {
  it("lists tools in definition order with JSON Schema and no $schema", async () => {
    const { tools } = (await call(server, "tools/list")) as { tools: Record<string, unknown>[] };
    expect(tools.map((t) => t.name)).toEqual(["echo", "sum", "wrongShape", "fails", "refuses"]);
    expect(tools[0]).toEqual({
      name: "echo",
      title: "Echo",
      description: "Echo text",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" }, times: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } },
        required: ["text"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    });
    for (const t of tools) expect(JSON.stringify(t)).not.toContain("$schema");
  });

  it("leaves additionalProperties open for z.object and advertises the output schema", async () => {
    const { tools } = (await call(server, "tools/list")) as { tools: Record<string, any>[] };
    const sum = tools.find((t) => t.name === "sum")!;
    expect(sum.inputSchema.additionalProperties).toBeUndefined();
    expect(sum.inputSchema.required).toEqual(["a", "b"]);
    expect(sum.outputSchema).toEqual({ type: "object", properties: { sum: { type: "number" } }, required: ["sum"] });
    expect(tools.find((t) => t.name === "echo")).not.toHaveProperty("outputSchema");
  });

  it("pages 250 tools 100 at a time", async () => {
    const many = new CompiledServer({
      name: "many",
      version: "1",
      tools: Array.from({ length: 250 }, (_, i) => ({ ...echo, name: `tool_${i}` })),
    });
    const names: string[] = [];
    const cursors: unknown[] = [];
    let cursor: unknown;
    do {
      const page = (await call(many, "tools/list", cursor === undefined ? undefined : { cursor })) as { tools: { name: string }[]; nextCursor?: string };
      names.push(...page.tools.map((t) => t.name));
      cursors.push(page.nextCursor);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(cursors).toHaveLength(3);
    expect(cursors.slice(0, 2).every((c) => typeof c === "string")).toBe(true);
    expect(names).toEqual(Array.from({ length: 250 }, (_, i) => `tool_${i}`));
  });

  it("refuses a cursor it did not issue with -32602", async () => {
    const error = await mcpError(call(server, "tools/list", { cursor: "not-a-cursor" }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain("Invalid cursor");
  });
});

describe("CompiledServer construction", () => {
  it("refuses a tool name defined twice", () => {
    expect(() => new CompiledServer({ name: "s", version: "1", tools: [echo, echo] }).assertValid()).toThrow("Tool echo is defined twice");
  });

  it.each(["", "has space", "slash/name", "é", "x".repeat(129)])("refuses the tool name %j", (name) => {
    expect(() => new CompiledServer({ name: "s", version: "1", tools: [{ ...echo, name }] }).assertValid()).toThrow(TypeError);
  });

  it("accepts a 128-character name of every allowed kind", () => {
    const name = "Az09_.-".padEnd(128, "x");
    expect(() => new CompiledServer({ name: "s", version: "1", tools: [{ ...echo, name }] }).assertValid()).not.toThrow();
  });

  it.each([
    ["a string", z.string()],
    ["an array", z.array(z.string())],
  ])("refuses %s as an input schema", (_name, input) => {
    expect(() => new CompiledServer({ name: "s", version: "1", tools: [{ ...echo, input }] }).assertValid()).toThrow(/Tool echo's input must be an object schema/);
  });
});

describe("CompiledServer tools/call", () => {
  it("answers a string return as text content with isError false", async () => {
    expect(await call(server, "tools/call", { name: "echo", arguments: { text: "ab", times: 2 } })).toEqual({
      content: [{ type: "text", text: "abab" }],
      isError: false,
    });
  });

  it("refuses an unknown tool with -32602", async () => {
    const error = await mcpError(call(server, "tools/call", { name: "nope", arguments: {} }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe("Unknown tool: nope");
  });

  it.each([
    ["a missing name", { arguments: {} }],
    ["arguments that are not an object", { name: "echo", arguments: ["x"] }],
  ])("refuses %s with -32602", async (_name, params) => {
    expect((await mcpError(call(server, "tools/call", params))).code).toBe(ErrorCode.InvalidParams);
  });

  it("answers bad arguments with an isError result naming the field", async () => {
    const result = (await call(server, "tools/call", { name: "echo", arguments: { text: 5 } })) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Invalid arguments for tool echo:/);
    expect(result.content[0]!.text).toContain("expected string, received number");
    expect(result.content[0]!.text).toContain("at text");
  });

  it("refuses unknown arguments for a strict schema", async () => {
    const result = (await call(server, "tools/call", { name: "echo", arguments: { text: "a", extra: 1 } })) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("extra");
  });

  it("validates missing arguments as an empty object", async () => {
    const result = (await call(server, "tools/call", { name: "echo" })) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("at text");
  });

  it("answers a handler's Error with an isError result carrying its message", async () => {
    expect(await call(server, "tools/call", { name: "fails", arguments: {} })).toEqual({
      content: [{ type: "text", text: "Tool fails failed: the upstream API is down" }],
      isError: true,
    });
  });

  it("lets a handler's McpError propagate", async () => {
    const error = await mcpError(call(server, "tools/call", { name: "refuses", arguments: {} }));
    expect(error.message).toBe("not allowed");
    expect(error.status).toBe(403);
  });

  it("answers with structuredContent and its JSON text when the tool has an output schema", async () => {
    expect(await call(server, "tools/call", { name: "sum", arguments: { a: 2, b: 3 } })).toEqual({
      content: [{ type: "text", text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
      isError: false,
    });
  });

  it("answers output that does not match the output schema with an isError result", async () => {
    const result = (await call(server, "tools/call", { name: "wrongShape", arguments: {} })) as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("does not match its output schema");
    expect(result).not.toHaveProperty("structuredContent");
  });
});

describe("CompiledServer other methods", () => {
  it("still answers tools/list and tools/call on a server without tools", async () => {
    const bare = new CompiledServer({ name: "bare", version: "1" });
    expect(await call(bare, "tools/list")).toEqual({ tools: [] });
    expect((await mcpError(call(bare, "tools/call", { name: "x" }))).message).toBe("Unknown tool: x");
  });

  it.each(["resources/list", "initialize", "ping", "logging/setLevel", "toString", "__proto__"])("answers %s with -32601 Method not found (the session's methods are not the definition's)", async (method) => {
    const error = await mcpError(call(server, method));
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect(error.message).toBe(`Method not found: ${method}`);
  });
});

describe("CompiledServer 2026-07-28 configuration", () => {
  it("answers cacheHint with the configured hint, or 0 ms and private", () => {
    const cached = new CompiledServer({ name: "c", version: "1", caching: { "tools/list": { ttlMs: 1_000, cacheScope: "public" } } });
    expect(cached.cacheHint("tools/list")).toEqual({ ttlMs: 1_000, cacheScope: "public" });
    expect(cached.cacheHint("resources/read")).toEqual({ ttlMs: 0, cacheScope: "private" });
  });

  it("accepts a ttlMs of 0 and either scope", () => {
    expect(() => new CompiledServer({ name: "c", version: "1", caching: { "prompts/list": { ttlMs: 0, cacheScope: "public" } } }).assertValid()).not.toThrow();
  });

  it("refuses caching for a method that is not cacheable", () => {
    const caching = { "tools/call": { ttlMs: 1, cacheScope: "public" } } as unknown as Record<"tools/list", { ttlMs: number; cacheScope: "public" }>;
    expect(() => new CompiledServer({ name: "c", version: "1", caching }).assertValid()).toThrow(TypeError);
    expect(() => new CompiledServer({ name: "c", version: "1", caching }).assertValid()).toThrow(/caching: tools\/call is not cacheable/);
  });

  it.each([
    ["a negative ttlMs", -1],
    ["a fractional ttlMs", 1.5],
    ["a NaN ttlMs", Number.NaN],
    ["an infinite ttlMs", Number.POSITIVE_INFINITY],
    ["a string ttlMs", "60000"],
  ])("refuses %s", (_what, ttlMs) => {
    const caching = { "tools/list": { ttlMs: ttlMs as number, cacheScope: "public" as const } };
    expect(() => new CompiledServer({ name: "c", version: "1", caching }).assertValid()).toThrow(/caching\["tools\/list"\]\.ttlMs must be a whole number/);
  });

  it.each([["shared"], ["PUBLIC"], [undefined]])("refuses the cache scope %j", (cacheScope) => {
    const caching = { "resources/read": { ttlMs: 1, cacheScope: cacheScope as "public" } };
    expect(() => new CompiledServer({ name: "c", version: "1", caching }).assertValid()).toThrow(/caching\["resources\/read"\]\.cacheScope must be "public" or "private"/);
  });

  it("refuses a missing hint", () => {
    const caching = { "tools/list": undefined as unknown as { ttlMs: number; cacheScope: "public" } };
    expect(() => new CompiledServer({ name: "c", version: "1", caching }).assertValid()).toThrow(TypeError);
  });

  it("advertises listChanged for the features it is asked to, when they exist", () => {
    const changing = new CompiledServer({ name: "l", version: "1", tools: [echo], listChanged: { tools: true, prompts: true } });
    expect(changing.capabilities()).toEqual({ logging: {}, tools: { listChanged: true } });
    const off = new CompiledServer({ name: "l", version: "1", tools: [echo], listChanged: { tools: false } });
    expect(off.capabilities()).toEqual({ logging: {}, tools: { listChanged: false } });
  });

  it("does not leak listChanged into another server", () => {
    new CompiledServer({ name: "l", version: "1", tools: [echo], listChanged: { tools: true } });
    expect(new CompiledServer({ name: "m", version: "1", tools: [echo] }).capabilities()).toEqual({ logging: {}, tools: { listChanged: false } });
  });

  it("discovers the stateless versions, the capabilities and the instructions", () => {
    expect(server.discover()).toEqual({
      supportedVersions: ["2026-07-28"],
      capabilities: { logging: {}, tools: { listChanged: false } },
      instructions: "Use echo.",
    });
    expect(new CompiledServer({ name: "bare", version: "1" }).discover()).toEqual({ supportedVersions: ["2026-07-28"], capabilities: { logging: {} } });
  });

  it("hands out fresh discover results", () => {
    const first = server.discover() as { supportedVersions: string[]; capabilities: { tools: { listChanged: boolean } } };
    first.supportedVersions.push("v999");
    first.capabilities.tools.listChanged = true;
    expect(server.discover()).toMatchObject({ supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: false } } });
  });
});
