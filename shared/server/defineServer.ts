/**
 * The public way to declare a server: a name, a version, and its tools, resources and prompts.
 * The helpers below are identities at runtime; they exist so TypeScript infers handler argument
 * types from schemas and templates.
 *
 * @example
 * export default defineServer({
 *   name: "demo", version: "1.0.0",
 *   tools: [tool({ name: "echo", description: "Echo text", input: z.strictObject({ text: z.string() }),
 *                  handler: async ({ text }) => text })],
 *   resources: [{ uri: "demo://readme", name: "readme", mimeType: "text/markdown", read: async () => "# Demo" }],
 *   prompts: [prompt({ name: "greet", arguments: z.object({ name: z.string() }),
 *                      get: async ({ name }) => [{ role: "user", content: { type: "text", text: `Greet ${name}` } }] })],
 * });
 */
import { ServerDefinition } from "./ServerDefinition.ts";
import type { PromptArguments, PromptDefinition } from "./PromptDefinition.ts";
import type { ResourceTemplateDefinition } from "./ResourceDefinition.ts";
import type { StandardSchemaV1 } from "./standardSchema.ts";
import type { ServerOptions } from "./ServerOptions.ts";
import type { JsonSchemaToolDefinition, ToolDefinition } from "./ToolDefinition.ts";

/**
 * Never throws: a malformed tool, resource or prompt is kept as the definition's `problem`, a
 * sentence naming it, which every entry reports (the Worker on each request, Deno and stdio at
 * startup) instead of failing to load.
 */
export function defineServer(options: ServerOptions): ServerDefinition {
  return new ServerDefinition(options);
}

/**
 * Types a tool: with a Standard Schema `input` the handler gets its parsed type; with a raw JSON
 * Schema `inputSchema` it gets `Record<string, unknown>` (already validated against the schema).
 */
export function tool<Input extends StandardSchemaV1, Output extends StandardSchemaV1 | undefined = undefined>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output>;
export function tool(definition: JsonSchemaToolDefinition): JsonSchemaToolDefinition;
export function tool(definition: ToolDefinition<any, any> | JsonSchemaToolDefinition): ToolDefinition<any, any> | JsonSchemaToolDefinition {
  return definition;
}

/** Types a prompt: `get` receives the parsed `arguments`, and `complete` may only name them. */
export function prompt<Args extends PromptArguments | undefined = undefined>(definition: PromptDefinition<Args>): PromptDefinition<Args> {
  return definition;
}

/** Types a resource template: `read` receives its `{variables}` by name, and `complete` may only name them. */
export function resourceTemplate<const T extends string>(definition: ResourceTemplateDefinition<T>): ResourceTemplateDefinition<T> {
  return definition;
}
