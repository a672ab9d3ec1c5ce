/**
 * A prompt's `arguments` schema → the `PromptArgument[]` that `prompts/list` advertises
 * (`{ name, title?, description?, required }`), through the same JSON Schema conversion as tools
 * (`jsonSchemaOf`), so descriptions, titles and optional fields read the same.
 *
 * Prompt arguments are strings on the wire, so a field that does not take a string fails here,
 * at startup, naming the prompt and the field.
 */
import type { PromptArguments } from "../definition/PromptDefinition.ts";
import { type JsonSchemaConverter, jsonSchemaOf } from "../schema/standardSchema.ts";

/** MCP `PromptArgument`. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required: boolean;
}

interface FieldSchema {
  type?: unknown;
  title?: unknown;
  description?: unknown;
}

/**
 * @param what Names the prompt in errors, e.g. `Prompt code_review`.
 *
 * @example promptArguments(z.object({ code: z.string().describe("The code") }), "Prompt review")
 * // [{ name: "code", description: "The code", required: true }]
 */
export function promptArguments(schema: PromptArguments, what: string, convert?: JsonSchemaConverter): PromptArgument[] {
  const json = jsonSchemaOf(schema, "input", convert, `${what}'s arguments`) as {
    type?: unknown;
    properties?: Record<string, FieldSchema>;
    required?: string[];
  };
  if (json.type !== "object") throw new TypeError(`${what}'s arguments must be an object schema of string fields`);
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, field]) => {
    if (field.type !== "string") {
      throw new TypeError(
        `${what}'s argument "${name}" must take a string (e.g. z.string() or z.enum([...]), optional or not): prompt arguments are strings on the wire`,
      );
    }
    return {
      name,
      ...(typeof field.title === "string" ? { title: field.title } : {}),
      ...(typeof field.description === "string" ? { description: field.description } : {}),
      required: required.has(name),
    };
  });
}
