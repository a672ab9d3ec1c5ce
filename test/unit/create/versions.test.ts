/**
 * What a new project pins, kept equal to what this repository tests with: the tools' versions
 * (create/lib/versions.mjs) to the root package.json's devDependencies, the package's own version
 * to durable-mcp's (a project depends on `^` it), and the template's compatibility date to the
 * repository's wrangler.toml (not newer than the pinned wrangler's workerd).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSIONS } from "../../../create/lib/versions.mjs";

const ROOT = resolve(import.meta.dirname, "../../..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const json = (file: string) => JSON.parse(read(file));

describe("create-durable-mcp's versions", () => {
  it("are exactly the root package.json's devDependencies, name for name", () => {
    const { devDependencies } = json("package.json") as { devDependencies: Record<string, string> };
    expect(Object.keys(VERSIONS).sort()).toEqual(["@types/node", "deno", "esbuild", "postgres", "typescript", "vitest", "wrangler", "zod"]);
    for (const [name, version] of Object.entries(VERSIONS)) expect(version, name).toBe(devDependencies[name]);
  });

  it("has durable-mcp's version, and no dependency of its own", () => {
    const create = json("create/package.json");
    expect(create.version).toBe(json("package.json").version);
    expect(create.dependencies).toBeUndefined();
    expect(create.bin).toEqual({ "create-durable-mcp": "index.mjs" });
  });

  it("writes the repository's compatibility date into a new project's wrangler.toml", () => {
    const date = (toml: string) => /^compatibility_date = "([\d-]+)"$/m.exec(toml)?.[1];
    expect(date(read("create/template/wrangler.toml"))).toBe(date(read("wrangler.toml")));
  });
});
