/**
 * The store benchmark's server definition (`../stores.mjs`), served alike by `serveNode` in
 * memory, `serveNode` on PostgreSQL and a Worker on workerd:
 * - `shout`: upper-cases its `text`, touching no state (what a stateless call costs);
 * - `jot`: writes its `text` to a handle's home and reads it back (a home's write per call); a
 *   call without `pad` opens a new one, whose id the answer ends with;
 * - `job`: upper-cases its `text`, run as a task when the client asks (what a task leaves).
 * The row check serves these behind sign-in, with a user's tool besides (`storesSignedIn.ts`).
 */
import { defineServer, homes, tasks, tool, watch } from "durable-mcp";
import { z } from "zod";

/** The key the tools keep their last text under. */
export const LAST = "last";

export const storeTools = [
  tool({ name: "shout", description: "Upper-cases a text", input: z.strictObject({ text: z.string() }), handler: async ({ text }) => text.toUpperCase() }),
  tool({
    name: "jot",
    description: 'Keeps a text in a pad (a handle\'s home) and answers it upper-cased, then the pad\'s id; without "pad", opens a new one',
    input: z.strictObject({ pad: z.string().optional(), text: z.string() }),
    home: { handle: "pad" },
    handler: async ({ text }, ctx) => {
      await ctx.storage.put(LAST, text);
      const kept = await ctx.storage.get<string>(LAST);
      return `${kept?.toUpperCase()} ${ctx.handle}`;
    },
  }),
  tool({ name: "job", description: "Upper-cases a text, as a task when asked", input: z.strictObject({ text: z.string() }), task: "optional", handler: async ({ text }) => text.toUpperCase() }),
];

export default defineServer({
  name: "bench-stores",
  version: "1.0.0",
  tools: storeTools,
  // watch(): the Worker then binds every object class wrangler.toml names, as the example's does.
  use: [homes(), tasks(), watch()],
});
