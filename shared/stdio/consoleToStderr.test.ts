import { afterEach, describe, expect, it } from "vitest";
import { consoleToStderr } from "./consoleToStderr.ts";

const original = { log: console.log, info: console.info, debug: console.debug };
afterEach(() => Object.assign(console, original));

describe("consoleToStderr", () => {
  it("sends log, info and debug to console.error until undone, then puts them back", () => {
    const undo = consoleToStderr();
    expect([console.log, console.info, console.debug]).toEqual([console.error, console.error, console.error]);
    undo();
    expect({ log: console.log, info: console.info, debug: console.debug }).toEqual(original);
  });

  it("stays in place while another server still runs, and counts each undo once", () => {
    const first = consoleToStderr();
    const second = consoleToStderr();
    first();
    first();
    expect(console.log).toBe(console.error);
    second();
    expect(console.log).toBe(original.log);
  });
});
