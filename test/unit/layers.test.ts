/**
 * The structure as a test: no import cycle between files, none between folders, and the core
 * (`shared/`) on web standards only, below the runtime edges. A failure names the cycle.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, folderGraph, type Graph, importGraph, sourceFiles, specifiersOf } from "../support/importGraph.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const files = sourceFiles(ROOT, ["shared", "worker", "durable", "deno", "example"]);
const graph = importGraph(ROOT, files);

describe("the import graph", () => {
  it("reads the project: every layer is there, and imports are followed", () => {
    expect(files.length).toBeGreaterThan(80);
    expect(graph.get("worker/createWorker.ts")).toContain("durable/SessionObject.ts");
    expect(graph.get("example/worker.ts")).toContain("worker/index.ts");
  });

  it("has no cycle between files", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("has no cycle between folders", () => {
    expect(cycles(folderGraph(graph))).toEqual([]);
  });

  it("finds a cycle where there is one (the check itself)", () => {
    const looped: Graph = new Map([
      ["a/x.ts", new Set(["b/y.ts"])],
      ["b/y.ts", new Set(["a/z.ts"])],
      ["a/z.ts", new Set<string>()],
      ["c/w.ts", new Set(["c/w.ts"])],
    ]);
    expect(cycles(looped)).toEqual([["c/w.ts"]]);
    expect(cycles(folderGraph(looped))).toEqual([["a", "b"]]);
  });
});

describe("the core, shared/", () => {
  const core = files.filter((f) => f.startsWith("shared/"));

  it("touches web standards only: no node: and no cloudflare: imports", () => {
    const offending = core.flatMap((file) => specifiersOf(ROOT, file).filter((s) => /^(node|cloudflare):/.test(s)).map((s) => `${file} → ${s}`));
    expect(offending).toEqual([]);
  });

  it("never imports a runtime edge (worker/, durable/, deno/) or the example", () => {
    const offending = core.flatMap((file) => [...graph.get(file)!].filter((t) => !t.startsWith("shared/")).map((t) => `${file} → ${t}`));
    expect(offending).toEqual([]);
  });
});
