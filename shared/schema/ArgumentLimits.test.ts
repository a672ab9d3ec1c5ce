import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { defineServer, tool } from "../server/defineServer.ts";
import { prompt } from "../server/prompt.ts";
import { call, mcpError, stubContext } from "../testing/testKit.ts";
import { argumentsPastLimits } from "./ArgumentLimits.ts";
import { boundedReport, MAX_ENTRY_CHARS } from "./boundedReport.ts";
import { jsonSchema } from "./jsonSchema.ts";
import type { AnyToolDefinition } from "../definition/ToolDefinition.ts";

type ToolResult = { isError?: boolean; content: { text: string }[] };

/** Past the default bound of values, and past where zod/mini and @cfworker/json-schema overflow the stack without the bounds. */
const BAD_ITEMS = 150_000;
/** What a refusal's whole text stays under, however large the input. */
const BOUNDED_TEXT = 4_096;

/** The same tool in each library: a list of strings, and an optional note. */
const lists: Record<string, Pick<AnyToolDefinition, "input">> = {
  "zod classic": { input: z.strictObject({ items: z.array(z.string()), note: z.string().optional() }) },
  "zod mini": { input: zm.strictObject({ items: zm.array(zm.string()), note: zm.optional(zm.string()) }) },
  valibot: { input: toStandardJsonSchema(v.strictObject({ items: v.array(v.string()), note: v.optional(v.string()) })) },
  arktype: { input: type({ items: "string[]", "note?": "string", "+": "reject" }) },
  "jsonSchema()": {
    input: jsonSchema({
      type: "object",
      properties: { items: { type: "array", items: { type: "string" } }, note: { type: "string" } },
      required: ["items"],
      additionalProperties: false,
    }),
  },
};

/** A server with the list tool, whose handler counts its runs; `limits` as the tool declares them. */
function listServer(schema: Pick<AnyToolDefinition, "input">, limits?: Record<string, number>) {
  const runs = { count: 0 };
  const list = { name: "list", description: "", ...schema, ...(limits && { limits }), handler: async (args: { items: string[] }) => `${++runs.count}: ${args.items.length}` };
  const server = defineServer({ name: "limits", version: "1", toJsonSchema: zm.toJSONSchema, tools: [tool(list as never)] });
  const callList = async (args: Record<string, unknown>, env: Record<string, unknown> = {}) =>
    (await call(server, "tools/call", { name: "list", arguments: args }, stubContext(env))) as ToolResult;
  return { runs, callList };
}

/** `[[[…"x"…]]]`, `levels` arrays deep. */
function nested(levels: number): unknown {
  let value: unknown = "x";
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe.each(Object.entries(lists))("a %s tool's arguments are bounded before validation", (_library, schema) => {
  it(`answers ${BAD_ITEMS} bad items with a short tool error naming the bound, without validating them or running the handler`, async () => {
    const { runs, callList } = listServer(schema);
    for (const bad of [1, null, []]) {
      const result = await callList({ items: Array.from({ length: BAD_ITEMS }, () => bad) });
      expect(result.isError).toBe(true);
      const text = result.content[0]!.text;
      expect(text.length).toBeLessThan(BOUNDED_TEXT);
      expect(text).toBe("Invalid arguments for tool list:\n✖ The arguments hold more than 10000 values (array items and object members, at any depth); the limit is 10000 (maxValues)\n  → at items");
    }
    expect(runs.count).toBe(0);
  });

  it("answers arguments nested past the bound with a tool error naming it", async () => {
    const { runs, callList } = listServer(schema);
    const result = await callList({ items: nested(40) });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Invalid arguments for tool list:\n✖ The arguments nest deeper than 32 levels; the limit is 32 \(maxDepth\)\n {2}→ at items(\[0\]){31}$/);
    expect(runs.count).toBe(0);
  });

  it("answers arguments larger than the bound in bytes with a tool error naming it", async () => {
    const { runs, callList } = listServer(schema);
    // 600,000 two-byte characters: 1.2 MB as UTF-8 JSON, though its `length` is under 1 MiB.
    const result = await callList({ items: ["é".repeat(600_000)] });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toBe("Invalid arguments for tool list:\n✖ The arguments take more than 1048576 bytes as JSON; the limit is 1048576 (maxBytes)");
    expect(runs.count).toBe(0);
  });

  it("serves arguments at every bound (the limits are inclusive)", async () => {
    const { callList } = listServer(schema);
    // The arguments object is level 1, `items` level 2: 10,000 values in all with `items` itself.
    expect(await callList({ items: Array.from({ length: 9_999 }, () => "x") })).toMatchObject({ isError: false, content: [{ text: "1: 9999" }] });
  });

  it("takes a tool's own limits over the defaults, and MAX_ARGUMENT_* from the environment", async () => {
    const roomy = listServer(schema, { maxValues: BAD_ITEMS + 1 });
    expect(await roomy.callList({ items: Array.from({ length: BAD_ITEMS }, () => "x") })).toMatchObject({ isError: false, content: [{ text: `1: ${BAD_ITEMS}` }] });
    const tight = listServer(schema, { maxValues: 3, maxDepth: 2, maxBytes: 40 });
    expect((await tight.callList({ items: ["a", "b", "c"] })).content[0]!.text).toMatch(/more than 3 values.*the limit is 3 \(maxValues\)/);
    expect((await tight.callList({ items: [["a"]] })).content[0]!.text).toMatch(/deeper than 2 levels.*\n {2}→ at items\[0\]$/);
    expect((await tight.callList({ items: ["a".repeat(40)] })).content[0]!.text).toMatch(/more than 40 bytes/);
    const byEnv = listServer(schema);
    const env = { MAX_ARGUMENT_VALUES: "3", MAX_ARGUMENT_DEPTH: "2", MAX_ARGUMENT_BYTES: "40" };
    expect((await byEnv.callList({ items: ["a", "b", "c"] }, env)).content[0]!.text).toMatch(/the limit is 3 \(maxValues\)/);
    expect((await byEnv.callList({ items: [["a"]] }, env)).content[0]!.text).toMatch(/the limit is 2 \(maxDepth\)/);
    expect((await byEnv.callList({ items: ["a".repeat(40)] }, env)).content[0]!.text).toMatch(/the limit is 40 \(maxBytes\)/);
    // A tool's own limit wins over the environment's.
    expect(await roomy.callList({ items: ["a", "b", "c"] }, env)).toMatchObject({ isError: false });
  });

  it("keeps the validator's message short when one issue is huge (a strict object's 5,000 unknown keys)", async () => {
    const { callList } = listServer(schema);
    const extra = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`${"k".repeat(100)}${i}`, "v"]));
    const result = await callList({ items: [], ...extra });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text.length).toBeLessThan(BOUNDED_TEXT);
    expect(result.content[0]!.text).toMatch(/^Invalid arguments for tool list:\n✖ /);
  });
});

describe("a tool's limits", () => {
  it("are refused at startup when they are not positive integers, or not limits, naming the tool and the limit", () => {
    const problems = [{ maxValues: 0 }, { maxDepth: 1.5 }, { maxBytes: "1000" }, { maxItems: 3 }, { maxDepth: 63 }].map((limits) => {
      const server = defineServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "", input: z.object({}), limits: limits as never, handler: async () => "" })] });
      return server.problem?.message.replace("The server definition is invalid: ", "");
    });
    expect(problems).toEqual(
      ['{"maxValues":0}', '{"maxDepth":1.5}', '{"maxBytes":"1000"}', '{"maxItems":3}', '{"maxDepth":63}'].map(
        (got) => `Tool t's limits must be { maxBytes?, maxDepth?, maxValues? } of positive integers, maxDepth at most 62 (no message nests deeper than 64); got ${got}`,
      ),
    );
    // At the deepest a message can carry, it is served.
    const deepest = defineServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "", input: z.object({}), limits: { maxDepth: 62 }, handler: async () => "" })] });
    expect(deepest.problem).toBeUndefined();
  });
});

describe("a prompt's arguments are bounded before validation", () => {
  const server = defineServer({
    name: "s",
    version: "1",
    prompts: [prompt({ name: "review", arguments: z.strictObject({ code: z.string() }), get: async ({ code }) => [{ role: "user", content: { type: "text", text: code } }] })],
  });

  it("answers too many arguments with -32602 naming the bound, and a huge single issue with a short message", async () => {
    const many = Object.fromEntries(Array.from({ length: BAD_ITEMS }, (_, i) => [`a${i}`, "x"]));
    const error = await mcpError(call(server, "prompts/get", { name: "review", arguments: { code: "x", ...many } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe("Invalid arguments for prompt review:\n✖ The arguments hold more than 10000 values (array items and object members, at any depth); the limit is 10000 (maxValues)");
    const long = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`${"k".repeat(100)}${i}`, "v"]));
    const huge = await mcpError(call(server, "prompts/get", { name: "review", arguments: { code: "x", ...long } }));
    expect(huge.code).toBe(-32602);
    expect(huge.message.length).toBeLessThan(BOUNDED_TEXT);
  });
});

describe("argumentsPastLimits", () => {
  const roomy = { maxBytes: 1 << 30, maxDepth: 64, maxValues: 1 << 30 };

  it("counts values across arrays: 200 arrays of 100 items pass 10,000 in all though none does alone", () => {
    const rows = Array.from({ length: 200 }, () => Array.from({ length: 100 }, () => 1));
    const past = argumentsPastLimits({ rows }, { ...roomy, maxValues: 10_000 });
    expect(past).toMatch(/^✖ The arguments hold more than 10000 values .*\n {2}→ at rows\[\d+\]$/);
  });

  it("measures bytes as compact UTF-8 JSON", () => {
    const args = { name: "Zoë — 東京 🌧", list: [1, -2.5, true, false, null, { a: [] }], nested: { "ké": "" } };
    const bytes = new TextEncoder().encode(JSON.stringify(args)).length;
    expect(argumentsPastLimits(args, { ...roomy, maxBytes: bytes })).toBeUndefined();
    expect(argumentsPastLimits(args, { ...roomy, maxBytes: bytes - 1 })).toBe(`✖ The arguments take more than ${bytes - 1} bytes as JSON; the limit is ${bytes - 1} (maxBytes)`);
  });

  it("stops at the bound: a million items cost no more to refuse than the limit's worth", () => {
    const huge = { items: new Array(1_000_000).fill(0) };
    expect(argumentsPastLimits(huge, { ...roomy, maxValues: 10 })).toMatch(/more than 10 values/);
  });

  it("walks a value deeper than the call stack allows, without recursion", () => {
    expect(argumentsPastLimits({ a: nested(200_000) }, { ...roomy, maxDepth: 32 })).toMatch(/^✖ The arguments nest deeper than 32 levels/);
  });
});

describe("boundedReport", () => {
  it("cuts a long entry, never inside a surrogate pair, and counts the entries left out", () => {
    const entry = `✖ ${"🌧".repeat(MAX_ENTRY_CHARS)}`;
    const report = boundedReport([entry, "✖ short"], 5, ["issue", "issues"]);
    const [first, second, last] = report.split("\n");
    expect(first!.length).toBeLessThanOrEqual(MAX_ENTRY_CHARS);
    expect(first!.endsWith("🌧…")).toBe(true);
    expect(second).toBe("✖ short");
    expect(last).toBe("… and 3 more issues");
  });
});
