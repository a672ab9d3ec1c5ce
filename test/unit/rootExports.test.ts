/**
 * The root entry (`durable-mcp`) exports the values the guide's examples use, and no other: each
 * runtime value it exports must appear in a TypeScript code block of the README or of the docs it
 * links to (the README teaches the common case; docs/ carries the examples of the rest). A value
 * that only the project's runtimes need belongs unexported, or under `durable-mcp/transport`; a
 * protocol constant under `durable-mcp/protocol`.
 *
 * Its types are the ones a user writes: each is named where a reader sees it (a code block, or
 * code in the prose of the README or docs/), and each is exported by name, so that the list in
 * `shared/index.ts` is the list a user gets.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as root from "../../shared/index.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const INDEX = join(ROOT, "shared/index.ts");

/** How many values and types the root may export: about what one can hold in one's head. */
const MAX_ROOT_VALUES = 20;
const MAX_ROOT_TYPES = 40;

const GUIDE = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
const guide = GUIDE.map((file) => readFileSync(join(ROOT, file), "utf8"));

/** The text of every ```ts / ```js code block in the README and docs/. */
function guideCode(): string {
  return guide.flatMap((text) => [...text.matchAll(/^[ \t]*```(?:ts|typescript|js|javascript|tsx)\n([\s\S]*?)^[ \t]*```/gm)].map((m) => m[1])).join("\n");
}

/** Every code block and every `inline code` span of the README and docs/: where a reader sees a name as code. */
function guideCodeAndSpans(): string {
  return [guideCode(), ...guide.flatMap((text) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]))].join("\n");
}

/** The statements of shared/index.ts that export, as written. */
function exportStatements(): ts.ExportDeclaration[] {
  const file = ts.createSourceFile(INDEX, readFileSync(INDEX, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return file.statements.filter(ts.isExportDeclaration);
}

/**
 * The type names shared/index.ts exports: those of `export type { … }` and the `type X` of
 * `export { … }`. Under `verbatimModuleSyntax` a type cannot be re-exported without `type`, so
 * these are all of them once no statement exports a whole module.
 */
function rootTypes(): string[] {
  return exportStatements().flatMap((statement) =>
    statement.exportClause && ts.isNamedExports(statement.exportClause)
      ? statement.exportClause.elements.filter((element) => statement.isTypeOnly || element.isTypeOnly).map((element) => element.name.text)
      : [],
  );
}

describe("the root entry", () => {
  it("exports only values an example of the README or docs/ uses", () => {
    const code = guideCode();
    const unused = Object.keys(root).filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(unused, `exported from shared/index.ts but used in no code block of the README or docs/: ${unused.join(", ")}`).toEqual([]);
  });

  it("names every export, never a whole module's", () => {
    const whole = exportStatements().filter((statement) => !statement.exportClause || !ts.isNamedExports(statement.exportClause));
    expect(whole.map((statement) => statement.getText()), "shared/index.ts exports a whole module: name its exports instead").toEqual([]);
  });

  it("exports only types the README or docs/ name as code", () => {
    const code = guideCodeAndSpans();
    const types = rootTypes();
    expect(types.length).toBeGreaterThan(0);
    const unnamed = types.filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(unnamed, `types exported from shared/index.ts that no code of the README or docs/ names: ${unnamed.join(", ")}`).toEqual([]);
  });

  it("stays small enough to hold in one's head", () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(MAX_ROOT_VALUES);
    expect(rootTypes().length).toBeLessThanOrEqual(MAX_ROOT_TYPES);
  });
});
