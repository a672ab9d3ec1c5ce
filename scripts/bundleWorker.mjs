/**
 * Bundles a Worker entry into one ES module the way wrangler does (esbuild, the workerd export
 * conditions, `cloudflare:*` left to the runtime), for the servers that tests and the benchmark
 * start without wrangler (`startServer`, `startWorkerd`).
 */
import { build } from "esbuild";

/**
 * @param {string} entry  absolute path of the Worker entry
 * @param {string} outfile  absolute path of the bundle to write
 * @param {{ minify?: boolean }} [options]  minify as `wrangler deploy` does with `minify = true`
 */
export async function bundleWorker(entry, outfile, { minify = false } = {}) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*"],
    logLevel: "error",
  });
}
