/**
 * The structure as a test: no import cycle between files, none between folders, and the core
 * (`shared/`) on web standards only, below the runtime edges, its folders in the order of the
 * layer table below (docs/architecture.md has the same table, with what each folder holds). A
 * failure names the cycle, or the import that goes up.
 */
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cycles, folderGraph, type Graph, importGraph, sourceFiles, specifiersOf } from "../support/importGraph.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const files = sourceFiles(ROOT, ["shared", "capabilities", "worker", "durable", "deno", "node", "postgres", "check", "example"]);
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

/**
 * The layers of `shared/`, lowest first: a folder imports only folders of lower layers. A new
 * folder must be placed here, or the test below names it.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["protocol", "bytes", "storage", "broadcast"],
  ["log", "config"],
  ["errors", "timers"],
  ["jsonrpc", "auth", "outbound"],
  ["http", "schema", "shares", "telemetry"],
  ["definition"],
  ["methods"],
  ["server"],
  ["exchange", "tasks"],
  ["home"],
  ["runtime"],
  ["session"],
  ["stateless"],
  ["transport"],
  ["host", "stdio"],
  ["routes"],
  // Helpers for tests of definitions (the unit tests' kit).
  ["testing"],
  // The public entries: shared/index.ts and its siblings.
  ["."],
];

describe("the core, shared/", () => {
  const core = files.filter((f) => f.startsWith("shared/"));
  const folderOf = (file: string) => dirname(file).slice("shared".length + 1) || ".";
  const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));

  it("places every folder in one layer of the table", () => {
    const unplaced = [...new Set(core.map(folderOf))].filter((folder) => !layerOf.has(folder));
    expect(unplaced).toEqual([]);
  });

  it("imports only from lower layers (or within a folder)", () => {
    const upward = core.flatMap((file) =>
      [...graph.get(file)!]
        .filter((target) => target.startsWith("shared/") && folderOf(target) !== folderOf(file) && layerOf.get(folderOf(target))! >= layerOf.get(folderOf(file))!)
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it("touches web standards only: no node: and no cloudflare: imports", () => {
    const offending = core.flatMap((file) => specifiersOf(ROOT, file).filter((s) => /^(node|cloudflare):/.test(s)).map((s) => `${file} → ${s}`));
    expect(offending).toEqual([]);
  });

  it("never imports a runtime edge (worker/, durable/, deno/, node/), a capability or the example; the public entries name the capabilities' factories", () => {
    // The package's entries (shared/index.ts and its siblings) export what users import, the capabilities' factories among them.
    const entryMay = (file: string, target: string) => folderOf(file) === "." && isCapabilityTop(target);
    const offending = core.flatMap((file) => [...graph.get(file)!].filter((t) => !t.startsWith("shared/") && !entryMay(file, t)).map((t) => `${file} → ${t}`));
    expect(offending).toEqual([]);
  });
});

/** A file at the top of a capability's folder (`capabilities/tasks/tasks.ts`): web-standard, like the core. */
const isCapabilityTop = (file: string) => /^capabilities\/[^/]+\/[^/]+$/.test(file);

describe("the capabilities, capabilities/<name>/", () => {
  const capabilityFiles = files.filter((f) => f.startsWith("capabilities/"));
  const nameOf = (file: string) => file.split("/")[1]!;
  /** `durable/` (Workers), `deno/` (Deno KV) or `postgres/` (PostgreSQL) inside a capability; "" at its top. */
  const sideOf = (file: string) => (isCapabilityTop(file) ? "" : file.split("/")[2]!);

  it("are folders with a web-standard top, a durable/ side, a deno/ side and a postgres/ side, nothing else", () => {
    expect(capabilityFiles).toContain("capabilities/tasks/tasks.ts");
    const misplaced = capabilityFiles.filter((f) => !["", "durable", "deno", "postgres"].includes(sideOf(f)) || f.split("/").length > 4);
    expect(misplaced).toEqual([]);
  });

  it("import the core, their own folder, the Workers core (durable/) from durable/, Deno KV's (deno/kv/) from deno/ and the PostgreSQL store (postgres/) from postgres/ only, and no runtime edge", () => {
    const allowed = (file: string, target: string) => {
      if (target.startsWith("shared/")) return true;
      if (target.startsWith(`capabilities/${nameOf(file)}/`)) return sideOf(target) === "" || sideOf(target) === sideOf(file);
      if (target.startsWith("durable/")) return sideOf(file) === "durable";
      if (target.startsWith("deno/kv/")) return sideOf(file) === "deno";
      if (target.startsWith("postgres/")) return sideOf(file) === "postgres";
      return false;
    };
    const offending = capabilityFiles.flatMap((file) => [...graph.get(file)!].filter((t) => !allowed(file, t)).map((t) => `${file} → ${t}`));
    expect(offending).toEqual([]);
  });

  it("touch web standards only at their top: cloudflare: in durable/, node: in postgres/ only", () => {
    const offending = capabilityFiles.flatMap((file) =>
      specifiersOf(ROOT, file)
        .filter((s) => (/^node:/.test(s) && sideOf(file) !== "postgres") || (/^cloudflare:/.test(s) && sideOf(file) !== "durable"))
        .map((s) => `${file} → ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it("are above the Workers, Deno KV and PostgreSQL cores: durable/, deno/kv/ and postgres/ import no capability", () => {
    const offending = files.filter((f) => f.startsWith("durable/") || f.startsWith("deno/kv/") || f.startsWith("postgres/")).flatMap((file) => [...graph.get(file)!].filter((t) => t.startsWith("capabilities/")).map((t) => `${file} → ${t}`));
    expect(offending).toEqual([]);
  });
});

describe("the PostgreSQL store, postgres/", () => {
  const store = files.filter((f) => f.startsWith("postgres/"));

  it("is an edge over the core: it imports the core's storage, bytes and fair shares (with their config and refusals), the Fleet it implements and itself, and the driver, no other package", () => {
    expect(store).toContain("postgres/PgStorage.ts");
    const outward = store.flatMap((file) => [...graph.get(file)!].filter((t) => !t.startsWith("postgres/") && !/^shared\/(storage|bytes|shares|config|errors)\//.test(t) && t !== "shared/runtime/Fleet.ts").map((t) => `${file} → ${t}`));
    const packages = store.flatMap((file) => specifiersOf(ROOT, file).filter((s) => !s.startsWith(".") && !s.startsWith("node:") && s !== "postgres").map((s) => `${file} → ${s}`));
    expect([...outward, ...packages]).toEqual([]);
  });

  it("is reached only from the runtime edges (node/, deno/) and capabilities' postgres/ sides: never from the Workers side or the example", () => {
    const allowed = (file: string) => file.startsWith("node/") || file.startsWith("deno/") || file.startsWith("postgres/") || /^capabilities\/[^/]+\/postgres\//.test(file);
    const inward = files.filter((file) => !allowed(file)).flatMap((file) => [...graph.get(file)!].filter((t) => t.startsWith("postgres/")).map((t) => `${file} → ${t}`));
    expect(inward).toEqual([]);
  });
});

describe("durable-mcp check, check/", () => {
  it("is a client of any MCP server: it imports nothing of this one, and nothing imports it", () => {
    const checks = files.filter((f) => f.startsWith("check/"));
    expect(checks).toContain("check/cli.ts");
    const outward = checks.flatMap((file) => [...graph.get(file)!].filter((t) => !t.startsWith("check/")).map((t) => `${file} → ${t}`));
    const inward = files.filter((f) => !f.startsWith("check/")).flatMap((file) => [...graph.get(file)!].filter((t) => t.startsWith("check/")).map((t) => `${file} → ${t}`));
    expect([...outward, ...inward]).toEqual([]);
  });
});
