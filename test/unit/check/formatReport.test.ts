/**
 * What `durable-mcp check` prints of what a server said: a hostile server's strings cannot drive
 * the terminal (escape sequences, a newline that starts a fake verdict) and cannot flood it.
 */
import { describe, expect, it } from "vitest";
import { formatJson, formatReport, NOT_CHECKED } from "../../../check/formatReport.ts";
import { MAX_PRINTED_CHARS } from "../../../check/printable.ts";
import { fail, warn } from "../../../check/wire/Finding.ts";

/** Sets the terminal's title, clears the screen, homes the cursor, then starts a line of its own. */
const HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[H\r\nPASS  everything  fine\n0 passed, 0 failed";

describe("formatReport", () => {
  it("prints a server's control characters as escapes: one line per finding, no ESC, BEL, CR or LF inside it", () => {
    const report = formatReport("http://127.0.0.1:1/mcp", [warn("report", `x 1 reports: ${HOSTILE}`, `why ${HOSTILE}`)]);
    expect(report).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    const lines = report.split("\n");
    expect(lines).toHaveLength(7);
    expect(lines[2]).toBe(String.raw`WARN  report  x 1 reports: \x1b]0;pwned\x07\x1b[2J\x1b[H\r\nPASS  everything  fine\n0 passed, 0 failed`);
    expect(lines[3]).toMatch(/^ +why: why \\x1b\]0;pwned/);
    expect(lines.filter((line) => line.startsWith("PASS"))).toEqual([]);
  });

  it("escapes C1 controls and bidirectional overrides too, which some terminals obey", () => {
    const [, , line] = formatReport("http://h/mcp", [fail("report", "a\u009b2Jb\u202egnp.exe")]).split("\n");
    expect(line).toBe(String.raw`FAIL  report  a\x9b2Jb\u202egnp.exe`);
  });

  it("cuts a very long server string, saying so", () => {
    const [, , line] = formatReport("http://h/mcp", [fail("report", "y".repeat(100_000))]).split("\n");
    expect(line!.length).toBeLessThan(2_100);
    expect(line).toMatch(/y…$/);
  });
});

describe("what the report says it did not check", () => {
  it("ends with a line saying no tool was called, in text and in JSON", () => {
    expect(formatReport("http://h/mcp", [warn("sse", "x")]).split("\n").at(-1)).toBe("Not checked: calling tools. The check lists what the server offers and calls none of it, since a tool may act.");
    expect(JSON.parse(formatJson("http://h/mcp", [])).notChecked).toBe(NOT_CHECKED);
  });
});

describe("formatJson", () => {
  it("is the same document, with no raw control character, C1 or bidi override in it", () => {
    const findings = [warn("report", `x ${HOSTILE} \u009b2J \u202e`)];
    const json = formatJson("http://h/mcp", findings);
    expect(json).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(JSON.parse(json)).toEqual({ url: "http://h/mcp", findings, notChecked: NOT_CHECKED });
  });

  it("cuts a very long string as the text does", () => {
    const { findings } = JSON.parse(formatJson("http://h/mcp", [fail("report", "y".repeat(100_000))]));
    expect(findings[0].summary).toBe(`${"y".repeat(MAX_PRINTED_CHARS)}…`);
  });
});
