/**
 * The server's definition: its name and every tool, in one file. Each runtime's entry
 * (src/worker.ts, src/node.ts, …) serves this same definition; src/server.test.ts tests it.
 */
import * as z from "zod/mini";
import { en } from "zod/locales";
import { defineServer, tool, watch } from "durable-mcp";

// zod/mini ships no messages of its own ("Invalid input"): English ones tell the model what a
// wrong argument should have been ("expected number, received string"), so it can fix its call.
z.config(en());

/**
 * The largest `upTo` countPrimes takes: about 1 ms of CPU once warm (7 ms cold), inside the 10 ms
 * a Worker on the free plan may use per request (1,000,000 took 10–19 ms).
 */
const MAX_UP_TO = 100_000;

export default defineServer({
  name: "{{name}}",
  version: "0.1.0",
  // zod/mini (the small build of zod 4) turns schemas into JSON Schema with this function.
  toJsonSchema: z.toJSONSchema,
  // Change fan-out: on Workers it brings the watch class the entry exports (`McpWatch`).
  use: [watch()],
  tools: [
    // A pure tool: input in, a structured result out (sent as structuredContent and as JSON text).
    tool({
      name: "countWords",
      description: "Counts the words and the characters in a text",
      input: z.strictObject({ text: z.string() }),
      output: z.object({ words: z.number(), characters: z.number() }),
      annotations: { readOnlyHint: true },
      handler: async ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length, characters: text.length }),
    }),
    // A tool that uses its context: progress for clients that asked for it, and ctx.signal,
    // aborted when the client cancels, leaves, or the call passes its deadline.
    tool({
      name: "countPrimes",
      description: `Counts the prime numbers from 2 up to a limit (at most ${MAX_UP_TO}), reporting progress`,
      input: z.strictObject({ upTo: z.int().check(z.minimum(2), z.maximum(MAX_UP_TO)) }),
      annotations: { readOnlyHint: true },
      handler: async ({ upTo }, ctx) => {
        const step = Math.ceil(upTo / 10);
        const composite = new Uint8Array(upTo + 1);
        let primes = 0;
        for (let n = 2; n <= upTo; n++) {
          if (n % step === 0) {
            ctx.signal.throwIfAborted();
            await ctx.progress(n, upTo, `checked up to ${n}`);
          }
          if (composite[n]) continue;
          primes++;
          for (let multiple = n * n; multiple <= upTo; multiple += n) composite[multiple] = 1;
        }
        return `There are ${primes} prime numbers up to ${upTo}.`;
      },
    }),
  ],
});
