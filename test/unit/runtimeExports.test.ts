/**
 * The runtime entries (`durable-mcp/cloudflare`, `/deno`, `/node`) export what serving a
 * definition there takes, each name shown as code in the README or docs/, and the same operation
 * by the same name on each: a route or check of one's own (`Route`, `BeforeStage`) is typed from
 * whichever entry serves it.
 */
import { describe, expect, it } from "vitest";
import { entryExports, guideCodeAndSpans, missingFrom } from "../support/guideNames.ts";

const ENTRIES = { "durable-mcp/cloudflare": "worker/index.ts", "durable-mcp/deno": "deno/index.ts", "durable-mcp/node": "node/index.ts" };

describe("the runtime entries", () => {
  for (const [entry, file] of Object.entries(ENTRIES)) {
    it(`${entry} names every export, each shown as code in the README or docs/`, () => {
      const { values, types, wholeModules } = entryExports(file);
      expect(wholeModules, `${file} exports a whole module: name its exports instead`).toEqual([]);
      const unnamed = missingFrom(guideCodeAndSpans(), [...values, ...types]);
      expect(unnamed, `exported from ${file} but named as code nowhere in the README or docs/: ${unnamed.join(", ")}`).toEqual([]);
    });
  }

  it("each types the routes and checks of one's own", () => {
    for (const file of Object.values(ENTRIES)) expect(entryExports(file).types, file).toEqual(expect.arrayContaining(["Route", "BeforeStage"]));
  });
});
