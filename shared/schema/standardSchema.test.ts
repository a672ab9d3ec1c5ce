import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { tool } from "../server/defineServer.ts";
import { prompt } from "../server/prompt.ts";
import { MAX_REPORTED_ISSUES, validateStandard } from "./standardSchema.ts";
import { call } from "../testing/testKit.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

type ToolResult = { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
type Listed = { tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] };

const FORECAST_SCHEMA = {
  type: "object",
  properties: { city: { type: "string", minLength: 2 }, days: { type: "number" } },
  required: ["city"],
};

/** The same tool in each library; the handler echoes what it was given. */
const forecasts = {
  "zod classic": z.strictObject({ city: z.string().min(2), days: z.number().optional() }),
  "zod mini": zm.strictObject({ city: zm.string().check(zm.minLength(2)), days: zm.optional(zm.number()) }),
  valibot: toStandardJsonSchema(v.strictObject({ city: v.pipe(v.string(), v.minLength(2)), days: v.optional(v.number()) })),
  arktype: type({ city: "string >= 2", "days?": "number" }),
};

describe.each(Object.entries(forecasts))("a tool whose input is a %s schema", (library, input) => {
  const server = new CompiledServer({
    name: "schemas",
    version: "1",
    toJsonSchema: zm.toJSONSchema,
    tools: [tool({ name: "forecast", description: "", input, handler: async (args) => JSON.stringify(args) })],
  });

  it("advertises the library's JSON Schema, without $schema", async () => {
    const { tools } = (await call(server, "tools/list")) as Listed;
    const schema = tools[0]!.inputSchema as Record<string, unknown>;
    expect(schema).not.toHaveProperty("$schema");
    expect({ ...schema, additionalProperties: undefined }).toEqual({ ...FORECAST_SCHEMA, additionalProperties: undefined });
  });

  it("runs the handler with the parsed arguments", async () => {
    const result = (await call(server, "tools/call", { name: "forecast", arguments: { city: "Lyon", days: 3 } })) as ToolResult;
    expect(result).toEqual({ content: [{ type: "text", text: '{"city":"Lyon","days":3}' }], isError: false });
  });

  it("answers invalid arguments with an isError result naming each issue and its path", async () => {
    const result = (await call(server, "tools/call", { name: "forecast", arguments: { city: "L", days: "3" } })) as ToolResult;
    expect(result.isError).toBe(true);
    const text = result.content[0]!.text;
    expect(text).toMatch(/^Invalid arguments for tool forecast:\n✖ /);
    expect(text, library).toContain("→ at city");
    expect(text, library).toContain("→ at days");
  });
});

describe("Standard Schema tools", () => {
  it("types a handler's arguments from any library's schema", () => {
    tool({
      name: "t",
      description: "",
      input: forecasts.valibot,
      handler: async (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>();
        return "";
      },
    });
    tool({
      name: "t",
      description: "",
      input: forecasts["zod mini"],
      handler: async (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number | undefined }>();
        return "";
      },
    });
  });

  it("refuses at startup a schema that cannot produce JSON Schema when no converter is given", () => {
    const definition = { name: "s", version: "1", tools: [tool({ name: "mini", description: "", input: forecasts["zod mini"], handler: async () => "" })] };
    expect(() => new CompiledServer(definition).assertValid()).toThrow(/Tool mini's input is a zod schema that cannot produce JSON Schema: it lacks ~standard.jsonSchema.*toJsonSchema: z.toJSONSchema/);
  });

  it("names @valibot/to-json-schema, and how to install and use it, for a valibot schema without it", () => {
    const bare = v.strictObject({ city: v.string() });
    const hint = "wrap it with toStandardJsonSchema from @valibot/to-json-schema (npm install @valibot/to-json-schema), e.g. input: toStandardJsonSchema(v.object({ … }))";
    const alone = new CompiledServer({ name: "s", version: "1", tools: [tool({ name: "forecast", description: "", input: bare, handler: async () => "" })] });
    expect(alone.problem?.message).toBe(`The server definition is invalid: Tool forecast's input is a valibot schema that cannot produce JSON Schema: it lacks ~standard.jsonSchema; ${hint}`);
    // A converter for another library (zod/mini's) is not tried on it: that failed with "Cannot read properties of undefined (reading 'def')".
    const beside = new CompiledServer({ name: "s", version: "1", toJsonSchema: zm.toJSONSchema, tools: [tool({ name: "forecast", description: "", input: bare, handler: async () => "" })] });
    expect(beside.problem?.message).toBe(alone.problem?.message);
  });

  it("refuses at startup an input that is not a Standard Schema", () => {
    const definition = { name: "s", version: "1", tools: [tool({ name: "x", description: "", input: { type: "object" }, handler: async () => "" } as never)] };
    expect(() => new CompiledServer(definition as never).assertValid()).toThrow(/Tool x's input must be a Standard Schema/);
  });

  it("structures output validated by the output schema's own library", async () => {
    const server = new CompiledServer({
      name: "s",
      version: "1",
      tools: [
        tool({
          name: "size",
          description: "",
          input: type({ ok: "boolean" }),
          output: type({ size: "number.integer" }),
          handler: async ({ ok }) => (ok ? { size: 3 } : { size: 1.5 }),
        }),
      ],
    });
    const { tools } = (await call(server, "tools/list")) as Listed;
    expect(tools[0]!.outputSchema).toEqual({ type: "object", properties: { size: { type: "integer" } }, required: ["size"] });
    expect(await call(server, "tools/call", { name: "size", arguments: { ok: true } })).toEqual({
      content: [{ type: "text", text: '{"size":3}' }],
      structuredContent: { size: 3 },
      isError: false,
    });
    const wrong = (await call(server, "tools/call", { name: "size", arguments: { ok: false } })) as ToolResult;
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]!.text).toMatch(/^Tool size returned a value that does not match its output schema:\n✖ size must be an integer/);
  });

  it("takes prompt arguments from any library and checks them before get runs", async () => {
    const server = new CompiledServer({
      name: "s",
      version: "1",
      prompts: [
        prompt({
          name: "review",
          arguments: toStandardJsonSchema(v.object({ code: v.pipe(v.string(), v.description("The code")), language: v.optional(v.string()) })),
          get: async ({ code, language }) => [{ role: "user", content: { type: "text", text: `${language ?? "?"}: ${code}` } }],
        }),
      ],
    });
    const { prompts } = (await call(server, "prompts/list")) as { prompts: unknown[] };
    expect(prompts).toEqual([
      {
        name: "review",
        arguments: [
          { name: "code", description: "The code", required: true },
          { name: "language", required: false },
        ],
      },
    ]);
    expect(await call(server, "prompts/get", { name: "review", arguments: { code: "x", language: "ts" } })).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "ts: x" } }],
    });
    await expect(call(server, "prompts/get", { name: "review", arguments: {} })).rejects.toThrow(/^Invalid arguments for prompt review:\n✖ .*\n  → at code/);
  });

  it("reports the first issues of a huge invalid argument and counts the rest", async () => {
    // 200,000 numbers where strings belong: one issue each, which once became a 12 MB message.
    const count = 200_000;
    const result = await validateStandard(z.array(z.string()), Array.from({ length: count }, () => 1));
    if (result.ok) throw new Error("expected the numbers to be refused");
    expect(result.message.length).toBeLessThan(4_096);
    const lines = result.message.split("\n");
    expect(lines.filter((l) => l.startsWith("✖"))).toHaveLength(MAX_REPORTED_ISSUES);
    expect(lines.slice(0, 2)).toEqual(["✖ Invalid input: expected string, received number", "  → at [0]"]);
    expect(lines.at(-1)).toBe(`… and ${count - MAX_REPORTED_ISSUES} more issues`);
  });

  it("shows every issue when they fit, and says 1 more issue in the singular", async () => {
    const fits = await validateStandard(z.array(z.string()), Array.from({ length: MAX_REPORTED_ISSUES }, () => 1));
    expect(fits.ok === false && fits.message).not.toContain("more issue");
    const oneOver = await validateStandard(z.array(z.string()), Array.from({ length: MAX_REPORTED_ISSUES + 1 }, () => 1));
    expect(oneOver.ok === false && oneOver.message.split("\n").at(-1)).toBe("… and 1 more issue");
  });
});
