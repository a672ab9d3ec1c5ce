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
import { describe, expect, it } from "vitest";
import * as root from "../../shared/index.ts";
import { entryExports, guideCode, guideCodeAndSpans, missingFrom } from "../support/guideNames.ts";

/**
 * How many values and types the root may export: about what one can hold in one's head. Two of the
 * values are the token endpoint's DPoP check and replay store, which an authorization server
 * shared by a Worker and a Deno process can import only from here (the runtime entries do not load
 * on each other's runtime).
 */
const MAX_ROOT_VALUES = 22;
const MAX_ROOT_TYPES = 40;

const exported = entryExports("shared/index.ts");

describe("the root entry", () => {
  it("exports only values an example of the README or docs/ uses", () => {
    const unused = missingFrom(guideCode(), Object.keys(root));
    expect(unused, `exported from shared/index.ts but used in no code block of the README or docs/: ${unused.join(", ")}`).toEqual([]);
  });

  it("names every export, never a whole module's", () => {
    expect(exported.wholeModules, "shared/index.ts exports a whole module: name its exports instead").toEqual([]);
    expect(exported.values.sort()).toEqual(Object.keys(root).sort());
  });

  it("exports only types the README or docs/ name as code", () => {
    expect(exported.types.length).toBeGreaterThan(0);
    const unnamed = missingFrom(guideCodeAndSpans(), exported.types);
    expect(unnamed, `types exported from shared/index.ts that no code of the README or docs/ names: ${unnamed.join(", ")}`).toEqual([]);
  });

  it("stays small enough to hold in one's head", () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(MAX_ROOT_VALUES);
    expect(exported.types.length).toBeLessThanOrEqual(MAX_ROOT_TYPES);
  });
});
