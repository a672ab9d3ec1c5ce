/**
 * `npm run size`: what Workers built on durable-mcp upload, as `wrangler deploy --dry-run` reports
 * it (minified), for docs/benchmarks.md: the example, and one tool declared three ways — `jsonSchema()`
 * (the core and the JSON Schema validator it brings), zod/mini, classic zod. Prints figures, and
 * beside the budgeted ones their budget (`sizeBudgets.mjs`, which `test/bundle` holds them to)
 * and goal.
 */
import { deploySize } from "./deploySize.mjs";
import { BUDGETS, GOALS } from "./sizeBudgets.mjs";

const workers = [
  ["the example (zod/mini, 9 tools, an App, a skill)", undefined, "example"],
  ["one tool, jsonSchema() (core + validator)", "test/bundle/rawSchemaWorker.ts", "jsonSchema"],
  ["one tool, zod/mini + its JSON Schema converter", "test/bundle/miniZodWorker.ts"],
  ["one tool, classic zod", "test/bundle/classicZodWorker.ts"],
];
const sizes = [];
for (const [label, entry, budgeted] of workers) {
  // The budget Workers have no task tools: built without the task class (test/bundle/wrangler.toml).
  const size = await deploySize(entry, entry ? "test/bundle/wrangler.toml" : undefined);
  sizes.push(size);
  const budget = budgeted ? `   budget ${BUDGETS[budgeted]}, goal ${GOALS[budgeted]}` : "";
  console.log(`${label.padEnd(50)} ${size.kib.toFixed(2).padStart(8)} KiB   gzip ${size.gzipKib.toFixed(2).padStart(6)} KiB${budget}`);
}
const plain = sizes[1].gzipKib;
console.log(`instead of jsonSchema() and its validator, zod/mini adds ${(sizes[2].gzipKib - plain).toFixed(2)} KiB gzip; classic zod adds ${(sizes[3].gzipKib - plain).toFixed(2)} KiB gzip`);
