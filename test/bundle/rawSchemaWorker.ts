/**
 * The smallest useful Worker: one tool declared in plain JSON Schema (`jsonSchema()`), no schema
 * library. Its bundle, as deployed (minified), is what the core costs with the JSON Schema
 * validator that `jsonSchema()` brings; `bundle.test.ts` holds it to a budget.
 */
import { defineServer, jsonSchema, tool } from "durable-mcp";
import { createWorker } from "durable-mcp/cloudflare";

const server = defineServer({
  name: "raw",
  version: "1.0.0",
  tools: [
    tool({
      name: "shout",
      description: "Upper-cases a text",
      input: jsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }),
      handler: async ({ text }) => String(text).toUpperCase(),
    }),
  ],
});

const { fetch, McpSession } = createWorker(server);
export { McpSession };
export default { fetch };
