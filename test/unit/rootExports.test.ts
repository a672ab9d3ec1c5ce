/**
 * The root entry (`durable-mcp`) exports the values the guide's examples use, and no other: each
 * runtime value it exports must appear in a TypeScript code block of the README or of the docs it
 * links to (the README teaches the common case; docs/ carries the examples of the rest). A value
 * that only the project's runtimes need belongs unexported, or under `durable-mcp/transport`; a
 * protocol constant under `durable-mcp/protocol`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import * as root from "../../shared/index.ts";

const ROOT = resolve(import.meta.dirname, "../..");

const GUIDE = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

/** The text of every ```ts / ```js code block in the README and docs/. */
function guideCode(): string {
  return GUIDE.map((file) => readFileSync(join(ROOT, file), "utf8"))
    .flatMap((text) => [...text.matchAll(/^[ \t]*```(?:ts|typescript|js|javascript|tsx)\n([\s\S]*?)^[ \t]*```/gm)].map((m) => m[1]))
    .join("\n");
}

describe("the root entry", () => {
  it("exports only values an example of the README or docs/ uses", () => {
    const code = guideCode();
    const unused = Object.keys(root).filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(unused, `exported from shared/index.ts but used in no code block of the README or docs/: ${unused.join(", ")}`).toEqual([]);
  });

  it("stays small enough to hold in one's head", () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(20);
  });
});
