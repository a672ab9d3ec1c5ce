/**
 * The project's import graph, read with TypeScript's own scanner (`ts.preProcessFile`, which sees
 * `import`, `import type`, `export … from` and `import()` of a literal), for the test that keeps
 * the layers free of cycles. Relative specifiers and the package's own names (`durable-mcp/…`,
 * resolved as the build does) are followed; anything else is a dependency, not a node.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { sourceAliases } from "../../scripts/sourceAliases.mjs";

export type Graph = Map<string, Set<string>>;

/** Every `.ts` file below `dirs` (relative to `root`), tests excepted. */
export function sourceFiles(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")) out.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}

/** file → the files it imports (paths relative to `root`). External specifiers are left out. */
export function importGraph(root: string, files: readonly string[]): Graph {
  const aliases = Object.fromEntries(Object.entries(sourceAliases()).map(([name, path]) => [name, relative(root, path)]));
  const graph: Graph = new Map();
  for (const file of files) {
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true).importedFiles) {
      const target = fileName.startsWith(".") ? join(dirname(file), fileName) : aliases[fileName];
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The specifiers a file imports, as written: for rules about what a layer may touch. */
export function specifiersOf(root: string, file: string): string[] {
  return ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true).importedFiles.map((f) => f.fileName);
}

/** The same graph between the files' folders (`shared/server`, `worker`…); edges inside a folder are dropped. */
export function folderGraph(graph: Graph): Graph {
  const folders: Graph = new Map();
  for (const [file, targets] of graph) {
    const from = dirname(file);
    const edges = folders.get(from) ?? new Set<string>();
    for (const target of targets) if (dirname(target) !== from) edges.add(dirname(target));
    folders.set(from, edges);
  }
  return folders;
}

/**
 * The cycles of a graph: each strongly connected component with more than one node (or a node
 * that imports itself), its nodes sorted, found with Tarjan's algorithm.
 */
export function cycles(graph: Graph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) !== indexOf.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found;
}
