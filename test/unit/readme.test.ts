/**
 * What the README tells a newcomer to run and copy, checked against the repository: the commands
 * under "The two commands" exist as scripts, the Deno one included; and the `wrangler.toml` it
 * gives a user builds the way `npm run size` measures (`scripts/deploySize.mjs` builds with the
 * repository's wrangler.toml and test/bundle's), so a user's upload is the size
 * `docs/benchmarks.md` says: without `keep_names = false` the example builds several KiB larger.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const readme = read("README.md");

/** The body of the first ```language block after `marker`. */
function blockAfter(marker: string, language: string): string {
  const at = readme.indexOf(marker);
  const fence = "```" + language + "\n";
  const open = readme.indexOf(fence, at);
  if (at < 0 || open < 0) throw new Error(`README.md has no ${language} block after "${marker}"`);
  return readme.slice(open + fence.length, readme.indexOf("```", open + fence.length));
}

/** The build settings that change the upload's size: `minify` and `keep_names`, as written. */
function buildSettings(toml: string): Record<string, string | undefined> {
  const setting = (name: string) => new RegExp(`^${name}\\s*=\\s*(\\S+)`, "m").exec(toml)?.[1];
  return { minify: setting("minify"), keep_names: setting("keep_names") };
}

describe("the README", () => {
  it("names npm start, npm run start:deno, npm run start:node and npm test where the commands are, each a script", () => {
    const commands = blockAfter("## The two commands", "sh");
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    const named = [...commands.matchAll(/npm (?:run )?(start:deno|start:node|start|test)\b/g)].map((m) => m[1]!);
    expect(named).toEqual(["start", "start:deno", "start:node", "test"]);
    for (const name of named) expect(scripts[name], name).toBeDefined();
  });

  it("gives a wrangler.toml that builds as the measured sizes were built", () => {
    const snippet = buildSettings(blockAfter("the pack test deploys with exactly this block", "toml"));
    expect(snippet).toEqual({ minify: "true", keep_names: "false" });
    expect(buildSettings(read("wrangler.toml"))).toEqual(snippet);
    expect(buildSettings(read("test/bundle/wrangler.toml"))).toEqual(snippet);
  });
});
