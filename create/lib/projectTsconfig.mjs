// @ts-check
/**
 * A new project's tsconfig.json: durable-mcp's README tsconfig for a Worker entry (`moduleResolution`
 * `Bundler`, which reads the package's `exports`; `allowImportingTsExtensions` with `noEmit` for the
 * `./server.ts` imports), checking every file in src/ against the types of the runtimes chosen:
 * the Workers runtime's from `wrangler types` (worker-configuration.d.ts, not
 * @cloudflare/workers-types beside it: both declare the same globals), Node's from @types/node.
 *
 * `skipLibCheck`: with both, the two declare some globals alike (`fetch`, streams) and their own
 * .d.ts files disagree with each other; the project's own files are checked in full.
 */

/**
 * @example projectTsconfig(["workers"]).compilerOptions.types // ["./worker-configuration.d.ts"]
 * @param {readonly import("./runtimes.mjs").Runtime[]} runtimes
 */
export function projectTsconfig(runtimes) {
  /** @type {string[]} */
  const types = [];
  if (runtimes.includes("workers")) types.push("./worker-configuration.d.ts");
  if (runtimes.includes("node") || runtimes.includes("stdio")) types.push("node");
  return {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      module: "ES2022",
      moduleResolution: "Bundler",
      types,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
    },
    include: ["src"],
  };
}
