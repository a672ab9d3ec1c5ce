/**
 * Bundles a Worker entry into one ES module the way wrangler does (esbuild, the workerd export
 * conditions, `cloudflare:*` left to the runtime), for the servers that tests and the benchmark
 * start without wrangler (`startServer`, `startWorkerd`).
 */
import { build } from "esbuild";
import { sourceAliases } from "./sourceAliases.mjs";

/** `durable-mcp` and its subpaths, from source (an installed package needs no such help), for Node or Deno. */
export const fromSource = sourceResolver();

/** The same for a Worker: the entries' `workerd` variants, as wrangler resolves an installed package. */
const fromWorkersSource = sourceResolver("workerd");

function sourceResolver(condition) {
  const aliases = sourceAliases(condition);
  return {
    name: "durable-mcp-source",
    setup(build) {
      build.onResolve({ filter: /^durable-mcp(\/|$)/ }, (args) => (aliases[args.path] ? { path: aliases[args.path] } : undefined));
    },
  };
}

/**
 * @param {string} entry  absolute path of the Worker entry
 * @param {string} outfile  absolute path of the bundle to write
 * @param {{ minify?: boolean }} [options]  minify as `wrangler deploy` does with `minify = true`
 */
export async function bundleWorker(entry, outfile, { minify = false } = {}) {
  await build({ ...WORKER_BUILD, entryPoints: [entry], outfile, minify });
}

/** esbuild's options for a Worker as wrangler builds one, `durable-mcp` taken from source: the entry and output are the caller's. */
export const WORKER_BUILD = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  mainFields: ["module", "main"],
  conditions: ["workerd", "worker", "browser"],
  external: ["cloudflare:*"],
  plugins: [fromWorkersSource],
  logLevel: "error",
};
