/**
 * create-durable-mcp's command line: flags read into options, and every mistake a sentence (the
 * bin prints it and exits 1; test/create runs that from the packed package).
 */
import { describe, expect, it } from "vitest";
import { parseOptions } from "../../../create/lib/parseOptions.mjs";
import { parseRuntimes } from "../../../create/lib/runtimes.mjs";

describe("parseOptions", () => {
  it("reads a directory, runtimes, a tarball and --yes", () => {
    expect(parseOptions(["my-server", "--runtimes", "node, Workers", "--from", "../durable-mcp-0.1.0.tgz", "--yes"])).toEqual({
      ok: true,
      options: { directory: "my-server", runtimes: ["workers", "node"], from: "../durable-mcp-0.1.0.tgz", yes: true, help: false },
    });
    expect(parseOptions(["-r", "deno", "-y"])).toEqual({ ok: true, options: { runtimes: ["deno"], yes: true, help: false } });
    expect(parseOptions([])).toEqual({ ok: true, options: { yes: false, help: false } });
    expect(parseOptions(["--help"])).toMatchObject({ ok: true, options: { help: true } });
  });

  it("refuses what it cannot use, in a sentence that names it", () => {
    expect(parseOptions(["x", "--runtime", "node"])).toEqual({ ok: false, message: "Unknown option '--runtime'." });
    expect(parseOptions(["x", "--runtimes", "workers,bun"])).toEqual({ ok: false, message: 'Unknown runtime "bun": choose from workers, deno, node, stdio.' });
    expect(parseOptions(["x", "--runtimes", " , "])).toEqual({ ok: false, message: "No runtime given: choose one or more of workers, deno, node, stdio, separated by commas." });
    expect(parseOptions(["a", "b"])).toEqual({ ok: false, message: 'One project directory at a time; got "a", "b".' });
    expect(parseOptions(["x", "--from", ""])).toMatchObject({ ok: false, message: expect.stringContaining("--from needs") });
    expect(parseOptions(["x", "--runtimes"])).toMatchObject({ ok: false, message: expect.stringContaining("--runtimes") });
  });
});

describe("parseRuntimes", () => {
  it("puts runtimes in one order, once each", () => {
    expect(parseRuntimes("stdio,deno,workers,node,deno")).toEqual({ ok: true, runtimes: ["workers", "deno", "node", "stdio"] });
  });
});
