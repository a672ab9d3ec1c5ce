/**
 * The package's public entry points, spelled in four places that must agree: package.json
 * `exports` (what an install resolves, built into dist/), and, for running from source, tsconfig
 * `paths`, deno.json `imports` and wrangler.toml `[alias]`.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { sourceAliases } from "../../scripts/sourceAliases.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));
const fromSource = Object.fromEntries(Object.entries(sourceAliases()).map(([name, path]) => [name, `./${relative(ROOT, path)}`]));

describe("entry points", () => {
  it("are the eight the design names", () => {
    expect(Object.keys(json("package.json").exports)).toEqual([".", "./cloudflare", "./deno", "./node", "./stdio", "./transport", "./testing", "./protocol"]);
    expect(Object.keys(fromSource)).toEqual(["durable-mcp", "durable-mcp/cloudflare", "durable-mcp/deno", "durable-mcp/node", "durable-mcp/stdio", "durable-mcp/transport", "durable-mcp/testing", "durable-mcp/protocol"]);
  });

  it("resolve to the same sources in tsconfig, deno.json and wrangler.toml", () => {
    const paths = Object.fromEntries(Object.entries(json("tsconfig.json").compilerOptions.paths as Record<string, string[]>).map(([name, [path]]) => [name, path]));
    expect(paths).toEqual(fromSource);
    expect(json("deno.json").imports).toEqual(fromSource);
    const alias: Record<string, string> = unstable_readConfig({ config: join(ROOT, "wrangler.toml") }).alias ?? {};
    expect(Object.fromEntries(Object.entries(alias).map(([name, path]) => [name, `./${relative(ROOT, resolve(ROOT, path))}`]))).toEqual(fromSource);
  });

  it("each name a type declaration beside its module", () => {
    for (const target of Object.values(json("package.json").exports) as { types: string; default: string }[]) {
      expect(target.types).toBe(target.default.replace(/\.js$/, ".d.ts"));
    }
  });
});
