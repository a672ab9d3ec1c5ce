/**
 * The benchmark's server definition: one tool, `shout`, that upper-cases its `text`, in classic
 * zod as the SDK v1 server beside it declares the same tool. Served by `serveNode` (`../node.mjs`).
 */
import { defineServer, tool } from "durable-mcp";
import { z } from "zod";

export default defineServer({
  name: "bench-node",
  version: "1.0.0",
  tools: [tool({ name: "shout", description: "Upper-cases a text", input: z.strictObject({ text: z.string() }), handler: async ({ text }) => text.toUpperCase() })],
});
