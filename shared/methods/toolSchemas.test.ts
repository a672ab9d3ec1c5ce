import { describe, it, expect } from "vitest";
import { z } from "zod";
import { tool } from "../server/defineServer.ts";
import { call } from "../testing/testKit.ts";
import { toolSchemas } from "./toolSchemas.ts";
import { jsonSchema, type JsonSchemaObject } from "../schema/jsonSchema.ts";
import type { AnyToolDefinition } from "../definition/ToolDefinition.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

/** The 2020-12 schema of the brief, as text, so that "verbatim" is checked byte for byte. */
const CONTACT_SCHEMA_JSON =
  '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}';

const received: Record<string, unknown>[] = [];
const contact = tool({
  name: "contact",
  description: "Records a contact",
  input: jsonSchema(JSON.parse(CONTACT_SCHEMA_JSON) as JsonSchemaObject),
  handler: async (args) => {
    received.push(args);
    return `recorded ${String(args.name)}`;
  },
});

const server = new CompiledServer({
  name: "raw",
  version: "1",
  tools: [
    contact,
    tool({
      name: "measure",
      description: "Structured output from a jsonSchema() output",
      input: jsonSchema({ type: "object", properties: { mode: { type: "string" } }, required: ["mode"] }),
      output: jsonSchema({ type: "object", properties: { size: { type: "integer" } }, required: ["size"], additionalProperties: false }),
      handler: async ({ mode }) => {
        if (mode === "ok") return { size: 3 };
        if (mode === "error") return { content: [{ type: "text", text: "upstream down" }], isError: true };
        return { size: "three" };
      },
    }),
    tool({ name: "zod", description: "Unchanged zod path", input: z.strictObject({ a: z.string() }), handler: async ({ a }) => a }),
  ],
});

type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
const callContact = (args: unknown) => call(server, "tools/call", { name: "contact", arguments: args }) as Promise<Result>;

describe("tools declared with jsonSchema()", () => {
  it("advertises the schema verbatim, $schema, $defs, $anchor and key order included", async () => {
    const { tools } = (await call(server, "tools/list")) as { tools: Record<string, unknown>[] };
    expect(JSON.stringify(tools[0]!.inputSchema)).toBe(CONTACT_SCHEMA_JSON);
    expect(tools[0]).toEqual({ name: "contact", description: "Records a contact", inputSchema: JSON.parse(CONTACT_SCHEMA_JSON) });
    expect(tools[1]!.outputSchema).toEqual({ type: "object", properties: { size: { type: "integer" } }, required: ["size"], additionalProperties: false });
  });

  it("runs the handler with the arguments as sent when they are valid", async () => {
    received.length = 0;
    const args = { name: "x", contactMethod: "phone", phone: "555", address: { city: "Lyon" } };
    expect(await callContact(args)).toEqual({ content: [{ type: "text", text: "recorded x" }], isError: false });
    expect(received).toEqual([args]);
  });

  it("answers the if/then branch's missing phone with an isError result and does not run the handler", async () => {
    received.length = 0;
    const result = await callContact({ name: "x", contactMethod: "phone" });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Invalid arguments for tool contact:\n/);
    expect(result.content[0]!.text).toContain('required property "phone"');
    expect(received).toEqual([]);
  });

  it("takes the else branch: email is then required", async () => {
    expect((await callContact({ name: "x", email: "x@example.com" })).isError).toBe(false);
    const result = await callContact({ name: "x", contactMethod: "email", phone: "555" });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('required property "email"');
  });

  it("refuses an unknown property (additionalProperties: false)", async () => {
    const result = await callContact({ name: "x", contactMethod: "phone", phone: "555", extra: 1 });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('Property "extra" does not match additional properties schema');
  });

  it("follows $ref into $defs, and reports where the value is wrong", async () => {
    const result = await callContact({ name: "x", email: "e", address: { city: 3 } });
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain("(schema #/properties/address/$ref/properties/city/type)\n  → at address.city");
  });

  it("validates missing arguments as {}", async () => {
    const result = (await call(server, "tools/call", { name: "contact" })) as Result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('required property "phone"');
  });

  it("sends a return matching the output schema as structuredContent", async () => {
    expect(await call(server, "tools/call", { name: "measure", arguments: { mode: "ok" } })).toEqual({
      content: [{ type: "text", text: '{"size":3}' }],
      structuredContent: { size: 3 },
      isError: false,
    });
  });

  it("answers a return that breaks the output schema with an isError result", async () => {
    const result = (await call(server, "tools/call", { name: "measure", arguments: { mode: "bad" } })) as Result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Tool measure returned a value that does not match its output schema:\n✖ Instance type "string" is invalid/);
    expect(result).not.toHaveProperty("structuredContent");
  });

  it("passes a CallToolResult through despite the output schema", async () => {
    expect(await call(server, "tools/call", { name: "measure", arguments: { mode: "error" } })).toEqual({
      content: [{ type: "text", text: "upstream down" }],
      isError: true,
    });
  });

  it("leaves zod tools as they were, side by side", async () => {
    const result = (await call(server, "tools/call", { name: "zod", arguments: { a: 1 } })) as Result;
    expect(result.content[0]!.text).toContain("expected string, received number");
    const { tools } = (await call(server, "tools/list")) as { tools: Record<string, unknown>[] };
    expect(tools[2]!.inputSchema).toEqual({ type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false });
  });
});

describe("toolSchemas refuses at startup", () => {
  const base = { name: "t", description: "", handler: async () => "" };
  const object = jsonSchema({ type: "object" });
  it.each<[string, unknown, string | RegExp]>([
    ["a root that is not an object schema", { ...base, input: jsonSchema({ type: "string" } as never) }, /Tool t's input must be an object schema, with "type": "object" at the root .*; got \{"type":"string"\}/],
    ["a root without a type", { ...base, input: jsonSchema({ properties: {} } as never) }, /Tool t's input must be an object schema/],
    ["a library's schema that is not an object", { ...base, input: z.string() }, /Tool t's input must be an object schema, .*; got \{"type":"string"\}/],
    ["a boolean property schema", { ...base, input: jsonSchema({ type: "object", properties: { a: true } }) }, /Tool t's input: "properties" must map each name to a schema object/],
    ["a required that is not a list of names", { ...base, input: jsonSchema({ type: "object", required: "a" }) }, /Tool t's input: "required" must be an array of property names/],
    ["an unknown dialect", { ...base, input: jsonSchema({ type: "object", $schema: "https://example.com/s" }) }, /Tool t's input: "\$schema" is "https:\/\/example.com\/s"; supported are JSON Schema 2020-12/],
    ["an output schema that is not an object", { ...base, input: object, output: jsonSchema({ type: "array" } as never) }, /Tool t's output must be an object schema/],
    ["an input that is not a Standard Schema", { ...base, input: { type: "object" } }, /Tool t's input must be a Standard Schema .*; for plain JSON Schema write jsonSchema\(\{ type: "object", … \}\), with import \{ jsonSchema \} from "durable-mcp"/],
    ["no input", { ...base }, /Tool t's input must be a Standard Schema/],
  ])("%s", (_name, definition, message) => {
    expect(() => toolSchemas(definition as AnyToolDefinition)).toThrow(message);
    expect(() => new CompiledServer({ name: "s", version: "1", tools: [tool(definition as AnyToolDefinition)] }).assertValid()).toThrow(message);
  });

  // Options that once took raw JSON Schema: a definition that still has one is told what to write instead.
  it.each([
    ["inputSchema", { ...base, inputSchema: { type: "object" } }, "input"],
    ["inputSchema beside an input", { ...base, input: z.object({}), inputSchema: { type: "object" } }, "input"],
    ["outputSchema", { ...base, input: object, outputSchema: { type: "object" } }, "output"],
  ])("the removed option %s, saying how to write it now", (_name, definition, option) => {
    const sentence = `has "${option}Schema", which tools no longer take: write ${option}: jsonSchema({ type: "object", … }), with import { jsonSchema } from "durable-mcp"`;
    expect(() => toolSchemas(definition as never)).toThrow(`Tool t ${sentence}`);
    expect(new CompiledServer({ name: "s", version: "1", tools: [tool(definition as never)] }).problem?.message).toBe(`The server definition is invalid: Tool t ${sentence}`);
  });

  it("accepts the MCP spec's no-parameter schema and then refuses any argument", async () => {
    const schemas = toolSchemas({ ...base, input: jsonSchema({ type: "object", additionalProperties: false }) });
    expect(await schemas.checkInput({})).toEqual({ ok: true, value: {} });
    expect((await schemas.checkInput({ a: 1 })).ok).toBe(false);
  });
});
