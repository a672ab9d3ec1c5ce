/**
 * What the guide (the README and docs/) shows a reader as code, and what an entry file exports by
 * name, for the tests that keep each public entry to names the guide teaches.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "../..");

const GUIDE = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

const guide = () => GUIDE.map((file) => readFileSync(join(ROOT, file), "utf8"));

/** The text of every ```ts / ```js code block in the README and docs/. */
export function guideCode(): string {
  return guide()
    .flatMap((text) => [...text.matchAll(/^[ \t]*```(?:ts|typescript|js|javascript|tsx)\n([\s\S]*?)^[ \t]*```/gm)].map((m) => m[1]))
    .join("\n");
}

/** Every code block and every `inline code` span of the README and docs/: where a reader sees a name as code. */
export function guideCodeAndSpans(): string {
  return [guideCode(), ...guide().flatMap((text) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]))].join("\n");
}

/** The names of `names` that `text` does not contain as a word. */
export function missingFrom(text: string, names: readonly string[]): string[] {
  return names.filter((name) => !new RegExp(`\\b${name}\\b`).test(text));
}

export interface EntryExports {
  values: string[];
  types: string[];
  /** The statements that export a whole module (`export * from`, `export type * from`), as written. */
  wholeModules: string[];
}

/**
 * What an entry file (a path from the repository root) exports, read from its statements. Under
 * `verbatimModuleSyntax` a type cannot be re-exported without `type`, so a name without it is a
 * value; the lists are complete once no statement exports a whole module.
 */
export function entryExports(file: string): EntryExports {
  const path = join(ROOT, file);
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const result: EntryExports = { values: [], types: [], wholeModules: [] };
  for (const statement of source.statements.filter(ts.isExportDeclaration)) {
    if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) {
      result.wholeModules.push(statement.getText(source));
      continue;
    }
    for (const element of statement.exportClause.elements) (statement.isTypeOnly || element.isTypeOnly ? result.types : result.values).push(element.name.text);
  }
  return result;
}
