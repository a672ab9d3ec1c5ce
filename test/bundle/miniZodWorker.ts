/**
 * The same one-tool Worker as `rawSchemaWorker.ts`, its schema in zod/mini with zod's JSON Schema
 * converter named once: the small path the example takes (`npm run size`).
 */
import { defineServer, tool } from "durable-mcp";
import { createWorker } from "durable-mcp/cloudflare";
import * as z from "zod/mini";

const server = defineServer({
  name: "zod-mini",
  version: "1.0.0",
  toJsonSchema: z.toJSONSchema,
  tools: [tool({ name: "shout", description: "Upper-cases a text", input: z.strictObject({ text: z.string() }), handler: async ({ text }) => text.toUpperCase() })],
});

const { fetch, McpSession } = createWorker(server);
export { McpSession };
export default { fetch };
