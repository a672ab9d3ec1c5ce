/**
 * The package's public entry points (package.json `exports`) mapped to their TypeScript sources,
 * so that the example, the fixtures and the tests import `durable-mcp` and its subpaths exactly
 * as an installed package is imported, while running from source. The rule is the build's:
 * `./dist/<path>.js` is built from `./<path>.ts`. (tsconfig.json `paths`, deno.json `imports` and
 * wrangler.toml `[alias]` spell the same map; a unit test keeps them equal.) An entry may have a
 * variant for Workers (the `workerd` export condition, which wrangler's bundler resolves): the
 * Workers' map (`sourceAliases("workerd")`) names it where there is one.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");

/**
 * @param {"workerd" | undefined} [condition] the export condition a Workers bundle resolves; default: none (Node, Deno, tsc)
 * @returns {Record<string, string>} specifier (`durable-mcp/deno`) → absolute source path
 */
export function sourceAliases(condition) {
  const { name, exports } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return Object.fromEntries(
    Object.entries(exports).map(([subpath, target]) => [subpath === "." ? name : `${name}${subpath.slice(1)}`, join(ROOT, (target[condition] ?? target.default).replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"))]),
  );
}
