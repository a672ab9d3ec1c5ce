/**
 * A tool's two faces, computed once at startup: the JSON Schemas that `tools/list` advertises and
 * the checks that `tools/call` runs. A Standard Schema tool (zod, valibot, arktype…) is
 * advertised through its JSON Schema conversion (`jsonSchemaOf`) and checked by its own library;
 * a raw-schema tool is advertised verbatim and checked with `jsonSchemaValidator`.
 *
 * Broken definitions fail here, loudly, naming the tool: MCP requires both schemas to be objects
 * with `"type": "object"` at the root (schema `Tool.inputSchema` / `Tool.outputSchema`).
 */
import { isObject } from "../jsonrpc/isObject.ts";
import { type ArgumentLimits, ownLimits } from "../schema/ArgumentLimits.ts";
import { jsonSchemaValidator } from "../schema/jsonSchemaValidator.ts";
import { isStandardSchema, type JsonSchemaConverter, jsonSchemaOf, type StandardSchemaV1, type Validated, validateStandard } from "../schema/standardSchema.ts";
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

/** @example await toolSchemas(tool).checkInput({ text: 1 }) // { ok: false, message: "✖ Invalid input…" } */
export function toolSchemas(tool: AnyToolDefinition, convert?: JsonSchemaConverter): ToolSchemas {
  const hasStandard = tool.input !== undefined;
  const hasRaw = tool.inputSchema !== undefined;
  if (hasStandard === hasRaw) {
    throw new TypeError(`Tool ${tool.name} needs exactly one of "input" (a Standard Schema: zod, valibot, arktype…) or "inputSchema" (a JSON Schema object)`);
  }
  const limits = ownLimits(tool.limits, `Tool ${tool.name}`);
  return { ...(hasRaw ? rawSchemas(tool.name, tool.inputSchema, tool.outputSchema) : standardSchemas(tool.name, tool.input, tool.output, convert)), limits };
}

function standardSchemas(name: string, input: unknown, output: unknown, convert: JsonSchemaConverter | undefined): Omit<ToolSchemas, "limits"> {
  const inputCheck = standard(input, `Tool ${name}'s input`);
  const schemas: Omit<ToolSchemas, "limits"> = {
    inputSchema: objectSchema(jsonSchemaOf(inputCheck, "input", convert, `Tool ${name}'s input`), `Tool ${name}'s input`),
    checkInput: (args) => validateStandard(inputCheck, args),
  };
  if (output !== undefined) {
    const outputCheck = standard(output, `Tool ${name}'s output`);
    // The input side, as for arguments: what a handler may return. (zod's output side would add
    // `additionalProperties: false` to every plain object, which the value sent never needs.)
    schemas.outputSchema = objectSchema(jsonSchemaOf(outputCheck, "input", convert, `Tool ${name}'s output`), `Tool ${name}'s output`);
    schemas.checkOutput = (value) => validateStandard(outputCheck, value);
  }
  return schemas;
}

function standard(schema: unknown, what: string): StandardSchemaV1 {
  if (!isStandardSchema(schema)) throw new TypeError(`${what} must be a Standard Schema (zod, valibot, arktype…); for a plain JSON Schema use "inputSchema"/"outputSchema"`);
  return schema;
}

function objectSchema(json: Record<string, unknown>, what: string): JsonSchemaObject {
  if (json.type !== "object") {
    throw new TypeError(`${what} must be an object schema (e.g. z.object or z.strictObject), got JSON Schema type ${JSON.stringify(json.type)}`);
  }
  return json as JsonSchemaObject;
}

function rawSchemas(name: string, input: unknown, output: unknown): Omit<ToolSchemas, "limits"> {
  const inputSchema = rawSchema(input, `Tool ${name}'s inputSchema`);
  const schemas: Omit<ToolSchemas, "limits"> = { inputSchema, checkInput: rawCheck(inputSchema, `Tool ${name}'s inputSchema`) };
  if (output !== undefined) {
    schemas.outputSchema = rawSchema(output, `Tool ${name}'s outputSchema`);
    schemas.checkOutput = rawCheck(schemas.outputSchema, `Tool ${name}'s outputSchema`);
  }
  return schemas;
}

function rawCheck(schema: JsonSchemaObject, what: string): (value: unknown) => Validated {
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
