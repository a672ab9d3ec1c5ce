/**
 * A tool's two faces, computed once at startup: the JSON Schemas that `tools/list` advertises and
 * the checks that `tools/call` runs. Every tool's schema is a Standard Schema — a library's (zod,
 * valibot, arktype…), advertised through its JSON Schema conversion (`jsonSchemaOf`) and checked
 * by its own library, or `jsonSchema({ … })`, advertised verbatim and checked by
 * `@cfworker/json-schema`; the core imports neither.
 *
 * Broken definitions fail here, loudly, naming the tool: MCP requires both schemas to be objects
 * with `"type": "object"` at the root (schema `Tool.inputSchema` / `Tool.outputSchema`), checked
 * here for every tool, whichever library wrote its schema.
 */
import { isObject } from "../jsonrpc/isObject.ts";
import { type ArgumentLimits, ownLimits } from "../schema/ArgumentLimits.ts";
import { isStandardSchema, type JsonSchemaConverter, jsonSchemaOf, type Validated, validateStandard } from "../schema/standardSchema.ts";
import type { JsonSchemaObject } from "../schema/jsonSchema.ts";
import type { AnyToolDefinition } from "../definition/ToolDefinition.ts";

export interface ToolSchemas {
  inputSchema: JsonSchemaObject;
  /** The tool's own bounds on its arguments, checked; the others come from the environment. */
  limits: Partial<ArgumentLimits>;
  outputSchema?: JsonSchemaObject;
  checkInput(args: unknown): Validated | Promise<Validated>;
  /** Present when the tool has an output schema. */
  checkOutput?(value: unknown): Validated | Promise<Validated>;
}

/**
 * The options that once took raw JSON Schema, and what replaces each (JSON Schema written by hand
 * goes through `jsonSchema()`): a definition that still has one (JavaScript, old code) is
 * told how to write it now, rather than served without the schema.
 */
const REMOVED_OPTIONS = { inputSchema: "input", outputSchema: "output" } as const;

/** @example await toolSchemas(tool).checkInput({ text: 1 }) // { ok: false, message: "✖ Invalid input…" } */
export function toolSchemas(tool: AnyToolDefinition, convert?: JsonSchemaConverter): ToolSchemas {
  const given = tool as unknown as Partial<Record<keyof typeof REMOVED_OPTIONS, unknown>>;
  for (const [removed, option] of Object.entries(REMOVED_OPTIONS)) {
    if (given[removed as keyof typeof REMOVED_OPTIONS] !== undefined) {
      throw new TypeError(`Tool ${tool.name} has "${removed}", which tools no longer take: write ${option}: jsonSchema({ type: "object", … }), with import { jsonSchema } from "durable-mcp"`);
    }
  }
  const input = side(tool.input, `Tool ${tool.name}'s input`, convert);
  const schemas: ToolSchemas = { inputSchema: input.json, checkInput: input.check, limits: ownLimits(tool.limits, `Tool ${tool.name}`) };
  if (tool.output !== undefined) {
    const output = side(tool.output, `Tool ${tool.name}'s output`, convert);
    schemas.outputSchema = output.json;
    schemas.checkOutput = output.check;
  }
  return schemas;
}

/**
 * One schema's JSON Schema and check. Always the input side of the schema, for output too: what a
 * handler may return. (zod's output side would add `additionalProperties: false` to every plain
 * object, which the value sent never needs.)
 */
function side(schema: unknown, what: string, convert: JsonSchemaConverter | undefined): { json: JsonSchemaObject; check: (value: unknown) => Validated | Promise<Validated> } {
  if (!isStandardSchema(schema)) {
    throw new TypeError(`${what} must be a Standard Schema (zod, valibot, arktype…); for plain JSON Schema write jsonSchema({ type: "object", … }), with import { jsonSchema } from "durable-mcp"`);
  }
  return { json: objectSchema(jsonSchemaOf(schema, "input", convert, what), what), check: (value) => validateStandard(schema, value) };
}

/** The parts of a schema that the MCP schema itself constrains; everything else is the author's. */
function objectSchema(json: unknown, what: string): JsonSchemaObject {
  if (!isObject(json) || json.type !== "object") {
    throw new TypeError(`${what} must be an object schema, with "type": "object" at the root (e.g. z.object, or jsonSchema({ type: "object", … })); got ${JSON.stringify(json)?.slice(0, 80)}`);
  }
  const { properties, required } = json;
  if (properties !== undefined && !(isObject(properties) && Object.values(properties).every(isObject))) {
    throw new TypeError(`${what}: "properties" must map each name to a schema object (MCP allows no boolean schemas there)`);
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string"))) {
    throw new TypeError(`${what}: "required" must be an array of property names`);
  }
  return json as JsonSchemaObject;
}
