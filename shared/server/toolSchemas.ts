/**
 * A tool's two faces, computed once at startup: the JSON Schemas that `tools/list` advertises and
 * the checks that `tools/call` runs. A zod tool is converted (`toolJsonSchema`) and parsed with
 * zod; a raw-schema tool is advertised verbatim and checked with `jsonSchemaValidator`.
 *
 * Broken definitions fail here, loudly, naming the tool: MCP requires both schemas to be objects
 * with `"type": "object"` at the root (schema `Tool.inputSchema` / `Tool.outputSchema`).
 */
import { z } from "zod";
import { isObject } from "./isObject.ts";
import { jsonSchemaValidator } from "./jsonSchemaValidator.ts";
import { toolJsonSchema } from "./toolJsonSchema.ts";
import type { AnyToolDefinition, JsonSchemaObject } from "./types.ts";

/** A parsed value (zod may transform it), or a readable reason. */
export type Checked = { ok: true; value: unknown } | { ok: false; message: string };

export interface ToolSchemas {
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  checkInput(args: unknown): Checked;
  /** Present when the tool has an output schema. */
  checkOutput?(value: unknown): Checked;
}

/** @example toolSchemas(tool).checkInput({ text: 1 }) // { ok: false, message: "✖ Invalid input…" } */
export function toolSchemas(tool: AnyToolDefinition): ToolSchemas {
  const hasZod = tool.input !== undefined;
  const hasRaw = tool.inputSchema !== undefined;
  if (hasZod === hasRaw) {
    throw new TypeError(`Tool ${tool.name} needs exactly one of "input" (a zod schema) or "inputSchema" (a JSON Schema object)`);
  }
  return hasRaw ? rawSchemas(tool.name, tool.inputSchema, tool.outputSchema) : zodSchemas(tool.name, tool.input, tool.output);
}

function zodSchemas(name: string, input: z.ZodType, output: z.ZodType | undefined): ToolSchemas {
  const schemas: ToolSchemas = {
    inputSchema: toolJsonSchema(input, `Tool ${name}'s input`),
    checkInput: (args) => zodCheck(input, args),
  };
  if (output) {
    schemas.outputSchema = toolJsonSchema(output, `Tool ${name}'s output`);
    schemas.checkOutput = (value) => zodCheck(output, value);
  }
  return schemas;
}

function zodCheck(schema: z.ZodType, value: unknown): Checked {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: z.prettifyError(parsed.error) };
}

function rawSchemas(name: string, input: unknown, output: unknown): ToolSchemas {
  const inputSchema = rawSchema(input, `Tool ${name}'s inputSchema`);
  const schemas: ToolSchemas = { inputSchema, checkInput: rawCheck(inputSchema, `Tool ${name}'s inputSchema`) };
  if (output !== undefined) {
    schemas.outputSchema = rawSchema(output, `Tool ${name}'s outputSchema`);
    schemas.checkOutput = rawCheck(schemas.outputSchema, `Tool ${name}'s outputSchema`);
  }
  return schemas;
}

function rawCheck(schema: JsonSchemaObject, what: string): (value: unknown) => Checked {
  const check = jsonSchemaValidator(schema, what);
  return (value) => {
    const message = check(value);
    return message === undefined ? { ok: true, value } : { ok: false, message };
  };
}

/** The parts of a schema that the MCP schema itself constrains; everything else is the author's. */
function rawSchema(schema: unknown, what: string): JsonSchemaObject {
  if (!isObject(schema) || schema.type !== "object") {
    throw new TypeError(`${what} must be a JSON Schema object with "type": "object" at the root, got ${JSON.stringify(schema)?.slice(0, 80)}`);
  }
  const { properties, required } = schema;
  if (properties !== undefined && !(isObject(properties) && Object.values(properties).every(isObject))) {
    throw new TypeError(`${what}: "properties" must map each name to a schema object (MCP allows no boolean schemas there)`);
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string"))) {
    throw new TypeError(`${what}: "required" must be an array of property names`);
  }
  return schema as JsonSchemaObject;
}
