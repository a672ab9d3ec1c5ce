/**
 * The package's public entry points, spelled in four places that must agree: package.json
 * `exports` (what an install resolves, built into dist/), and, for running from source, tsconfig
 * `paths`, deno.json `imports` and the wrangler configs' `[alias]`. Workers resolve the `workerd`
 * export condition, where the root has a variant of its own (its capability factories bring their
 * Durable Object classes): the wrangler configs name that variant, tsconfig and deno.json the default.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { sourceAliases } from "../../scripts/sourceAliases.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));
const relativeTo = (aliases: Record<string, string>) => Object.fromEntries(Object.entries(aliases).map(([name, path]) => [name, `./${relative(ROOT, path)}`]));
const fromSource = relativeTo(sourceAliases());
const fromWorkersSource = relativeTo(sourceAliases("workerd"));
/** The wrangler configs that alias the package to its sources, and whether each aliases every entry point or only those its Workers import. */
const WRANGLER_CONFIGS = [["wrangler.toml", true], ["test/bundle/wrangler.toml", false], ["example/oauth/wrangler.toml", false]] as const;

describe("entry points", () => {
  it("are the eight the design names", () => {
    expect(Object.keys(json("package.json").exports)).toEqual([".", "./cloudflare", "./deno", "./node", "./stdio", "./transport", "./testing", "./protocol"]);
    expect(Object.keys(fromSource)).toEqual(["durable-mcp", "durable-mcp/cloudflare", "durable-mcp/deno", "durable-mcp/node", "durable-mcp/stdio", "durable-mcp/transport", "durable-mcp/testing", "durable-mcp/protocol"]);
  });

  it("resolve to the same sources in tsconfig and deno.json, and to the Workers variants in the wrangler configs", () => {
    const paths = Object.fromEntries(Object.entries(json("tsconfig.json").compilerOptions.paths as Record<string, string[]>).map(([name, [path]]) => [name, path]));
    expect(paths).toEqual(fromSource);
    const { "@cloudflare/workers-oauth-provider": provider, ...entries } = json("deno.json").imports;
    expect(entries).toEqual(fromSource);
    // Besides the entry points, one mapping for the OAuth example on Deno: the provider through its loader.
    expect(provider).toBe("./example/oauth/deno/workersOAuthProvider.ts");
    expect(fromWorkersSource["durable-mcp"]).toBe("./worker/root.ts");
    for (const [config, whole] of WRANGLER_CONFIGS) {
      const alias: Record<string, string> = unstable_readConfig({ config: join(ROOT, config) }).alias ?? {};
      // The repository's file each names, however deep the config (`../../worker/root.ts` in example/oauth/).
      const aliased = Object.fromEntries(Object.entries(alias).map(([name, path]) => [name, path.replace(/^(\.\.\/)+/, "./")]));
      expect(aliased, config).toEqual(whole ? fromWorkersSource : Object.fromEntries(Object.keys(aliased).map((name) => [name, fromWorkersSource[name]])));
    }
  });

  it("give the root a Workers variant that exports the same names, its capability factories made for Workers", async () => {
    const root = readFileSync(join(ROOT, "worker/root.ts"), "utf8");
    expect(root).toContain('export * from "../shared/index.ts";');
    const factories = [...root.matchAll(/^export \{ (\w+) \} from "\.\.\/capabilities\/(\w+)\/durable\/\w+\.ts";$/gm)].map(([, name, folder]) => [name, folder]);
    expect(factories).toEqual([["tasks", "tasks"], ["watch", "watch"], ["homes", "homes"]]);
    // Every factory the Workers variant replaces is one the root exports.
    const index = readFileSync(join(ROOT, "shared/index.ts"), "utf8");
    for (const [name, folder] of factories) expect(index).toContain(`export { ${name} } from "../capabilities/${folder}/${name}.ts";`);
  });

  it("each name a type declaration beside its module", () => {
    for (const target of Object.values(json("package.json").exports) as { types: string; default: string }[]) {
      expect(target.types).toBe(target.default.replace(/\.js$/, ".d.ts"));
    }
  });
});
