/**
 * The public way to declare a server: a name, a version, and its tools, resources and prompts.
 * Every definition is made by its helper: `tool()` infers a handler's argument types from its
 * schema; `prompt()`, `resource()` and `resourceTemplate()` (beside this file) also bring the
 * code that serves their kind (`Feature.ts`).
 *
 * @example
 * export default defineServer({
 *   name: "demo", version: "1.0.0",
 *   tools: [tool({ name: "echo", description: "Echo text", input: z.strictObject({ text: z.string() }),
 *                  handler: async ({ text }) => text })],
 *   resources: [resource({ uri: "demo://readme", name: "readme", mimeType: "text/markdown", read: async () => "# Demo" })],
 *   prompts: [prompt({ name: "greet", arguments: z.object({ name: z.string() }),
 *                      get: async ({ name }) => [{ role: "user", content: { type: "text", text: `Greet ${name}` } }] })],
 * });
 */
import { CompiledServer } from "./CompiledServer.ts";
import type { ServerDefinition } from "./ServerDefinition.ts";
import type { StandardSchemaV1 } from "../schema/standardSchema.ts";
import type { Extension, ServerOptions } from "../definition/ServerOptions.ts";
import type { Home } from "../definition/Home.ts";
import type { ToolDefinition } from "../definition/ToolDefinition.ts";
import { type Featured, withFeatures } from "../definition/Feature.ts";

/**
 * Never throws: a malformed tool, resource or prompt is kept as the definition's `problem`, a
 * sentence naming it, which every entry reports (the Worker on each request, Deno, Node and stdio at
 * startup) instead of failing to load.
 */
export function defineServer<Use extends readonly Extension<string>[] = []>(options: ServerOptions & { use?: Use }): ServerDefinition<ObjectsOf<Use>> {
  return new CompiledServer<ObjectsOf<Use>>(options);
}

/** The names of the Durable Object classes the capabilities of a `use` list bring to a Worker entry. */
export type ObjectsOf<Use extends readonly Extension<string>[]> = NonNullable<Use[number]["~objects"]>;

/**
 * Declares a tool: the handler gets its `input` schema's parsed type — with `jsonSchema({ … })`,
 * `Record<string, unknown>` (already validated against the schema) or the type it is given.
 * Required, as every definition's helper is: a plain object in `tools` is a definition problem.
 */
export function tool<Input extends StandardSchemaV1, Output extends StandardSchemaV1 | undefined = undefined, const H extends Home = "session">(
  definition: ToolDefinition<Input, Output, H>,
): ToolDefinition<Input, Output, H> & Featured {
  // Tools are the core: the mark brings no code, it only says a helper made the definition.
  return withFeatures(definition, []);
}
