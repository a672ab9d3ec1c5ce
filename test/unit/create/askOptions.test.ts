/**
 * What create-durable-mcp asks in a terminal, and what it takes without one: the questions go
 * through the function given (readline in the bin), here a list of answers.
 */
import { describe, expect, it } from "vitest";
import { askOptions } from "../../../create/lib/askOptions.mjs";

/** A terminal that gives these answers in turn, and records the questions. */
function answering(...answers: string[]) {
  const questions: string[] = [];
  const ask = async (question: string) => {
    questions.push(question);
    return answers.shift() ?? "";
  };
  return { ask, questions };
}

describe("askOptions", () => {
  it("takes the defaults without a terminal, or with --yes, asking nothing", async () => {
    const defaults = { directory: "my-mcp-server", runtimes: ["workers", "node", "stdio"] };
    expect(await askOptions({ yes: false, help: false }, undefined)).toEqual({ ok: true, options: defaults });
    const terminal = answering("ignored");
    expect(await askOptions({ yes: true, help: false, from: "/tmp/d.tgz" }, terminal.ask)).toEqual({ ok: true, options: { ...defaults, from: "/tmp/d.tgz" } });
    expect(terminal.questions).toEqual([]);
  });

  it("asks for the directory and the runtimes the command line left out; an empty answer is the default", async () => {
    const terminal = answering("weather", "deno ,node");
    expect(await askOptions({ yes: false, help: false }, terminal.ask)).toEqual({ ok: true, options: { directory: "weather", runtimes: ["deno", "node"] } });
    expect(terminal.questions).toEqual(["Project directory (my-mcp-server): ", "Runtimes, any of workers, deno, node, stdio (workers,node,stdio): "]);
    expect(await askOptions({ yes: false, help: false }, answering("", "").ask)).toEqual({ ok: true, options: { directory: "my-mcp-server", runtimes: ["workers", "node", "stdio"] } });
  });

  it("asks nothing the command line gave", async () => {
    const terminal = answering();
    expect(await askOptions({ directory: "x", runtimes: ["stdio"], yes: false, help: false }, terminal.ask)).toEqual({ ok: true, options: { directory: "x", runtimes: ["stdio"] } });
    expect(terminal.questions).toEqual([]);
  });

  it("asks again after an answer it cannot use, saying why, and gives up after three", async () => {
    const terminal = answering("bun", "workers");
    expect(await askOptions({ directory: "x", yes: false, help: false }, terminal.ask)).toEqual({ ok: true, options: { directory: "x", runtimes: ["workers"] } });
    expect(terminal.questions[1]).toMatch(/^Unknown runtime "bun": choose from workers, deno, node, stdio\.\nRuntimes/);
    expect(await askOptions({ directory: "x", yes: false, help: false }, answering("a", "b", "c", "workers").ask)).toEqual({ ok: false, message: 'Unknown runtime "c": choose from workers, deno, node, stdio.' });
  });
});
