/**
 * zod schema → the JSON Schema a client sees in `tools/list`, using zod's own converter.
 *
 * The `$schema` keyword is dropped: MCP (≤ 2025-06-18) clients compare schemas to plain objects
 * and 2025-11-25 defaults to draft 2020-12 anyway. Tool input schemas must describe an object
 * (MCP `Tool.inputSchema.type` is the literal "object"); anything else fails loudly at startup.
 * (A tool declared with a raw `inputSchema` is advertised verbatim, `$schema` and all; see `toolSchemas`.)
 */
import { z } from "zod";
import type { JsonSchemaObject } from "./types.ts";

export function toolJsonSchema(schema: z.ZodType, what: string): JsonSchemaObject {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  if (json.type !== "object") {
    throw new TypeError(`${what} must be an object schema (z.object or z.strictObject), got JSON Schema type ${JSON.stringify(json.type)}`);
  }
  return json as JsonSchemaObject;
}
