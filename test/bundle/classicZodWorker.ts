/**
 * The same one-tool Worker as `rawSchemaWorker.ts`, its schema in classic zod (`import { z } from
 * "zod"`): what that library adds to a deployed Worker, for docs/benchmarks.md (`npm run size`).
 */
import { defineServer, tool } from "durable-mcp";
import { createWorker } from "durable-mcp/cloudflare";
import { z } from "zod";

const server = defineServer({
  name: "classic-zod",
  version: "1.0.0",
  tools: [tool({ name: "shout", description: "Upper-cases a text", input: z.strictObject({ text: z.string() }), handler: async ({ text }) => text.toUpperCase() })],
});

const { fetch, McpSession } = createWorker(server);
export { McpSession };
export default { fetch };
