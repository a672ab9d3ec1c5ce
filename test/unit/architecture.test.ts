/**
 * docs/architecture.md as a test: its tables name every folder of the top level that holds source,
 * of `shared/` and of `capabilities/`, and only folders that exist, so the map cannot drift from
 * the code.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

/** The folders directly inside `dir`. */
const foldersIn = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

/** The text of the section under `heading`, up to the next heading of its level. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no section "${heading}"`);
  const end = doc.indexOf("\n## ", start + heading.length + 4);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The folders a section's table rows name, as `` `name/` `` (or `` `prefix/name/` ``) in their second or first cell. */
function tabled(text: string, prefix: string): string[] {
  const names = new Set<string>();
  for (const row of text.split("\n").filter((line) => line.startsWith("| "))) {
    const cell = row.split("|")[prefix ? 1 : 2] ?? "";
    for (const [, name] of cell.matchAll(new RegExp(`\`${prefix.replace("/", "\\/")}([\\w-]+)\\/\``, "g"))) names.add(name!);
  }
  return [...names].sort();
}

describe("docs/architecture.md", () => {
  it("lists every folder of the top level that holds source, and no other", () => {
    // Tracked files only: what the build and the tests leave (dist/, node_modules/) is not the project.
    const tracked = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n");
    const withSource = [...new Set(tracked.filter((path) => /^[^./][^/]*\/.*\.(ts|mjs|js)$/.test(path)).map((path) => path.split("/")[0]!))].sort();
    expect(withSource).toContain("postgres");
    const rows = section("The top level").split("\n").filter((line) => line.startsWith("| `"));
    const named = rows.map((row) => /^\| `([\w-]+)\/`/.exec(row)?.[1]).filter((name): name is string => !!name);
    expect(named.sort()).toEqual(withSource);
  });

  it("places every folder of shared/ in its layer table, and names no folder that is not there", () => {
    expect(tabled(section("The layers of `shared/`"), "")).toEqual(foldersIn("shared"));
  });

  it("lists every capability folder, and no other", () => {
    expect(foldersIn("capabilities")).toContain("tasks");
    expect(tabled(section("Capabilities"), "capabilities/")).toEqual(foldersIn("capabilities"));
  });
});
