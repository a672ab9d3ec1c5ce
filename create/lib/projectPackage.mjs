// @ts-check
/**
 * A new project's package.json: its scripts for the runtimes chosen, durable-mcp and zod as its
 * dependencies, and the tools at the exact versions this repository tests with (VERSIONS). A
 * project served on Node has the `postgres` driver as an optional dependency: with it, Node keeps
 * its state in the database `--store` or `DATABASE_URL` names (npm passes what follows `--` to
 * `node dist/node.mjs`); `npm install --omit=optional` leaves it out, and state is then in memory.
 *
 * `npm start` serves on the first of Workers, Node, Deno that was chosen (or over stdio when that
 * is all), always on 127.0.0.1:8787 unless `-- --port N` says otherwise; each other runtime has a
 * script of its own. Node 20 runs no TypeScript, so the Node entries are bundled by esbuild into
 * dist/ first (dependencies left to node_modules), then run.
 */
import { VERSIONS } from "./versions.mjs";

/**
 * Requests must be addressed to a loopback name: refuses DNS-rebinding pages. Given before the
 * other flags because `--var` takes a list. Deno and Node do the same by themselves on loopback.
 */
const WRANGLER_DEV = 'wrangler dev --var "ALLOWED_HOSTS:localhost,127.0.0.1,[::1]" --ip 127.0.0.1';

/** @param {string} entry */
const bundleAndRun = (entry) => `esbuild src/${entry}.ts --bundle --platform=node --format=esm --packages=external --log-level=warning --outfile=dist/${entry}.mjs && node dist/${entry}.mjs`;

/** @type {Record<import("./runtimes.mjs").Runtime, string>} */
const COMMANDS = {
  workers: WRANGLER_DEV,
  node: bundleAndRun("node"),
  deno: "deno run --allow-net --allow-env src/deno.ts",
  stdio: bundleAndRun("stdio"),
};

/**
 * @example projectPackage({ name: "my-server", runtimes: ["workers"], durableMcp: "^0.2.0" }).scripts.start // "wrangler dev …"
 * @param {object} project
 * @param {string} project.name
 * @param {import("./runtimes.mjs").Runtime[]} project.runtimes
 * @param {string} project.durableMcp  the dependency's spec: a range, or `file:` and a tarball's path
 */
export function projectPackage({ name, runtimes, durableMcp }) {
  const has = (/** @type {import("./runtimes.mjs").Runtime} */ runtime) => runtimes.includes(runtime);
  const started = /** @type {const} */ (["workers", "node", "deno", "stdio"]).find(has);
  if (started === undefined) throw new RangeError("A project needs at least one runtime.");
  /** @type {Record<string, string>} */
  const scripts = { start: COMMANDS[started] };
  if (has("node") && started !== "node") scripts["start:node"] = COMMANDS.node;
  if (has("deno") && started !== "deno") scripts["start:deno"] = COMMANDS.deno;
  // Kept even when it is `start` too: a desktop client's configuration names it (README).
  if (has("stdio")) scripts.stdio = COMMANDS.stdio;
  scripts.test = "vitest run";
  scripts.typecheck = has("workers") ? "wrangler types && tsc --noEmit" : "tsc --noEmit";
  // Minified for the upload only: wrangler.toml leaves `wrangler dev`'s bundle readable.
  if (has("workers")) scripts.deploy = "wrangler deploy --minify";

  const tools = ["typescript", "vitest"];
  if (has("workers")) tools.push("wrangler");
  if (has("node") || has("stdio")) tools.push("esbuild", "@types/node");
  if (has("deno")) tools.push("deno");
  return {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts,
    dependencies: { "durable-mcp": durableMcp, zod: VERSIONS.zod },
    ...(has("node") && { optionalDependencies: { postgres: VERSIONS.postgres } }),
    devDependencies: Object.fromEntries(tools.sort().map((tool) => [tool, VERSIONS[/** @type {keyof typeof VERSIONS} */ (tool)]])),
  };
}
