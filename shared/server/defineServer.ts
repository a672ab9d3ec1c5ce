/**
 * The public way to declare a server: a name, a version, and its tools.
 *
 * @example
 * export default defineServer({
 *   name: "demo", version: "1.0.0",
 *   tools: [tool({ name: "echo", description: "Echo text", input: z.strictObject({ text: z.string() }),
 *                  handler: async ({ text }) => text })],
 * });
 */
import type { z } from "zod";
import { McpServer } from "./McpServer.ts";
import type { ServerDefinition, ToolDefinition } from "./types.ts";

export function defineServer(definition: ServerDefinition): McpServer {
  return new McpServer(definition);
}

/** Identity at runtime; it exists so TypeScript infers the handler's argument types from `input`. */
export function tool<Input extends z.ZodType, Output extends z.ZodType | undefined = undefined>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}
