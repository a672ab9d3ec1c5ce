/**
 * The project's words cite nothing a reader cannot open: no issue numbers (the tracker is not in
 * the repository, and a reference to it says what happened, not what is true) and no paths
 * outside the repository. Checked in every Markdown file but the CHANGELOG (which is history on
 * purpose) and in the comments of every source file; code may still read a file from beside the
 * repository as test data, so string literals and code are not checked, only comments.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", ".wrangler", ".git", "artifacts"]);
const SOURCE_EXTENSIONS = new Set([".ts", ".mts", ".tsx", ".js", ".mjs", ".cjs"]);
const HISTORY_FILES = new Set(["CHANGELOG.md"]);

/** What a sentence must not cite: an issue by number, and files that live beside the repository. */
const ISSUE_NUMBER = /\bissues? ?#?\d+|(?<![\w&/#])#\d+\b/i;
const OUTSIDE_NAMES = /\bFIELD\.md\b|\bSTYLE(?:\.md\b| habit| \d)|\bseeds\/|\bhandbook\b/i;
const RELATIVE_PATH = /(?:\.\.\/)+[\w.@-]+/g;

interface Finding {
  where: string;
  text: string;
}

/** Every file under the repository root that is not a dependency, a build or a test artifact. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRECTORIES.has(entry.name)) return [];
    const path = join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Each comment of a source file, with the line it starts on. */
function commentsOf(path: string, text: string): { position: number; line: number; text: string }[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, path.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const seen = new Set<number>();
  const comments: { position: number; line: number; text: string }[] = [];
  const collect = (position: number) => {
    for (const range of [...(ts.getLeadingCommentRanges(text, position) ?? []), ...(ts.getTrailingCommentRanges(text, position) ?? [])]) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push({ position: range.pos, line: file.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) });
    }
  };
  // A comment sits between two tokens, so it is at the start or the end of some node or list.
  const visit = (node: ts.Node) => {
    collect(node.pos);
    collect(node.end);
    ts.forEachChild(node, visit, (nodes) => {
      collect(nodes.pos);
      collect(nodes.end);
      for (const child of nodes) visit(child);
    });
  };
  collect(0);
  visit(file);
  return comments.sort((a, b) => a.position - b.position);
}

/** Whether a relative path written in `file` leads out of the repository. */
function leavesRepository(file: string, written: string): boolean {
  const target = relative(ROOT, resolve(dirname(file), written));
  return target === ".." || target.startsWith(`..${sep}`);
}

/**
 * The citations in one piece of prose, each named by file and line. A Markdown file's fenced
 * blocks are commands and code: a path there (`npm install ../package.tgz`) is not a citation.
 */
function citationsIn(file: string, line: number, text: string): Finding[] {
  const findings: Finding[] = [];
  let fenced = false;
  text.split("\n").forEach((row, offset) => {
    const where = `${relative(ROOT, file)}:${line + offset}`;
    if (extname(file) === ".md" && row.trimStart().startsWith("```")) fenced = !fenced;
    const issue = ISSUE_NUMBER.exec(row);
    if (issue) findings.push({ where, text: `cites an issue: "${issue[0]}"` });
    const outside = OUTSIDE_NAMES.exec(row);
    if (outside) findings.push({ where, text: `cites a file outside the repository: "${outside[0]}"` });
    if (fenced) return;
    for (const path of row.matchAll(RELATIVE_PATH)) {
      if (leavesRepository(file, path[0])) findings.push({ where, text: `cites a path outside the repository: "${path[0]}"` });
    }
  });
  return findings;
}

const files = filesUnder(ROOT);

describe("the project's words", () => {
  it("finds the files it checks", () => {
    const names = files.map((file) => relative(ROOT, file));
    expect(names).toContain("README.md");
    expect(names).toContain(join("docs", "architecture.md"));
    expect(names).toContain(join("durable", "SessionObject.ts"));
  });

  // Parses every source file of the repository: more than the default 5 s on a busy machine.
  it("cite no issue number and no file outside the repository, in Markdown or in comments", { timeout: 60_000 }, () => {
    const findings = files.flatMap((file): Finding[] => {
      const name = file.slice(file.lastIndexOf(sep) + 1);
      if (HISTORY_FILES.has(name) && dirname(file) === ROOT) return [];
      if (extname(file) === ".md") return citationsIn(file, 1, readFileSync(file, "utf8"));
      if (!SOURCE_EXTENSIONS.has(extname(file)) || file.endsWith(".d.ts")) return [];
      return commentsOf(file, readFileSync(file, "utf8")).flatMap((comment) => citationsIn(file, comment.line, comment.text));
    });
    expect(findings.map((finding) => `${finding.where} ${finding.text}`)).toEqual([]);
  });

  it("tells a citation from what merely looks like one", () => {
    const here = join(ROOT, "shared", "any.ts");
    const cited = (text: string) => citationsIn(here, 1, text).map((finding) => finding.text);
    expect(cited("bounded before validation (issue 21)")).toHaveLength(1);
    expect(cited("see #23 for why")).toHaveLength(1);
    expect(cited("the style guide, STYLE.md, says so")).toHaveLength(1);
    expect(cited("values, not exceptions (STYLE habit 3)")).toHaveLength(1);
    expect(cited("read from ../../shared/seeds/001.txt")).toHaveLength(2);
    expect(cited("imports ../errors/McpError.ts, inside the repository")).toEqual([]);
    expect(cited("the fragment test://two-parts#1 and the entity &#10;")).toEqual([]);
  });

  it("reads comments, not code or strings", () => {
    const text = 'const seed = "../../../shared/seeds/x.txt"; // the capture (issue 11)\n/** Header, #4. */\nexport function f(/* inside */) {\n  // alone in a block\n}\nconst pattern = /issue 9/; // after a regex\n';
    expect(commentsOf("x.ts", text).map((comment) => [comment.line, comment.text])).toEqual([
      [1, "// the capture (issue 11)"],
      [2, "/** Header, #4. */"],
      [3, "/* inside */"],
      [4, "// alone in a block"],
      [6, "// after a regex"],
    ]);
  });
});
