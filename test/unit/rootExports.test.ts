/**
 * The root entry (`durable-mcp`) exports the values the README's examples use, and no other: each
 * runtime value it exports must appear in one of the README's TypeScript code blocks. A value that
 * only the project's runtimes need belongs unexported, or under `durable-mcp/transport`; a protocol
 * constant under `durable-mcp/protocol`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import * as root from "../../shared/index.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** The text of every ```ts / ```js code block in the README. */
function readmeCode(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  return [...readme.matchAll(/^[ \t]*```(?:ts|typescript|js|javascript|tsx)\n([\s\S]*?)^[ \t]*```/gm)].map((m) => m[1]).join("\n");
}

describe("the root entry", () => {
  it("exports only values a README example uses", () => {
    const code = readmeCode();
    const unused = Object.keys(root).filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(unused, `exported from shared/index.ts but used in no README code block: ${unused.join(", ")}`).toEqual([]);
  });

  it("stays small enough to hold in one's head", () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(20);
  });
});
