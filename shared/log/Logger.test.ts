import { describe, it, expect } from "vitest";
import { Logger, MAX_LOGGED_SERVER_TEXT, MAX_LOGGED_STRING, serverText, type LogSink } from "./Logger.ts";
import type { LogLevel } from "../protocol/logLevels.ts";

function capture(level: LogLevel = "info", fields = {}): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink: LogSink = (line) => lines.push(line);
  return { logger: new Logger(level, fields, sink), lines };
}

describe("Logger", () => {
  it("writes one JSON object per line with level, event, fixed and call fields", () => {
    const { logger, lines } = capture("info", { session: "abc" });
    logger.info("session.open", { protocolVersion: "2025-11-25" });
    expect(lines.map((line) => JSON.parse(line))).toEqual([{ level: "info", event: "session.open", session: "abc", protocolVersion: "2025-11-25" }]);
  });

  it("writes nothing below its level", () => {
    const { logger, lines } = capture("warning");
    logger.info("rpc.in", { method: "ping" });
    expect(logger.enabled("info")).toBe(false);
    expect(logger.enabled("error")).toBe(true);
    expect(lines).toEqual([]);
  });

  it("cuts a 4 MiB string field to a short line that says how much was cut", () => {
    const { logger, lines } = capture();
    const reason = "x".repeat(4 * 1024 * 1024);
    logger.info("request.cancelled", { requestId: 7, reason });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(1_024);
    const entry = JSON.parse(lines[0]!);
    expect(entry.requestId).toBe(7);
    expect(entry.reason).toBe(`${"x".repeat(MAX_LOGGED_STRING)}…(+${reason.length - MAX_LOGGED_STRING} chars)`);
  });

  it("keeps a string of exactly MAX_LOGGED_STRING characters whole", () => {
    const { logger, lines } = capture();
    const text = "y".repeat(MAX_LOGGED_STRING);
    logger.info("e", { text });
    expect(JSON.parse(lines[0]!).text).toBe(text);
  });

  it("cuts long strings inside objects and arrays, and in a child logger's fixed fields", () => {
    const { logger, lines } = capture();
    const long = "z".repeat(10_000);
    logger.child({ origin: long }).warn("e", { params: { reason: long, ok: "short" }, list: [long, 1] });
    const line = lines[0]!;
    expect(line.length).toBeLessThan(2_048);
    const entry = JSON.parse(line);
    const cut = `${"z".repeat(MAX_LOGGED_STRING)}…(+${10_000 - MAX_LOGGED_STRING} chars)`;
    expect(entry).toEqual({ level: "warning", event: "e", origin: cut, params: { reason: cut, ok: "short" }, list: [cut, 1] });
  });

  it("does not split a surrogate pair at the cut", () => {
    const { logger, lines } = capture();
    logger.info("e", { text: `${"a".repeat(MAX_LOGGED_STRING - 1)}😀${"b".repeat(100)}` });
    const text: string = JSON.parse(lines[0]!).text;
    expect(text.startsWith(`${"a".repeat(MAX_LOGGED_STRING - 1)}…(+`)).toBe(true);
    expect(lines[0]).not.toMatch(/\\ud8/i);
  });
});

describe("Logger: the server's own sentences", () => {
  it("writes a serverText whole past MAX_LOGGED_STRING, beside a client's string that is cut", () => {
    const { logger, lines } = capture();
    const sentence = `The server definition is invalid: ${"a reason ".repeat(60)}; or wrap it (valibot: toStandardJsonSchema)`;
    const client = "c".repeat(1_000);
    logger.error("definition.invalid", { message: serverText(sentence), reason: client });
    const entry = JSON.parse(lines[0]!);
    expect(entry.message).toBe(sentence);
    expect(entry.reason).toBe(`${"c".repeat(MAX_LOGGED_STRING)}…(+${1_000 - MAX_LOGGED_STRING} chars)`);
  });

  it("cuts a serverText past MAX_LOGGED_SERVER_TEXT, saying how much", () => {
    const { logger, lines } = capture();
    logger.error("e", { message: serverText("s".repeat(MAX_LOGGED_SERVER_TEXT + 10)) });
    expect(JSON.parse(lines[0]!).message).toBe(`${"s".repeat(MAX_LOGGED_SERVER_TEXT)}…(+10 chars)`);
  });
});

describe("Logger: redaction", () => {
  const handle = "0123456789abcdef0123456789abcdef";

  it("masks a handle, a password and a bearer token in any string field, as spans do", () => {
    const { logger, lines } = capture();
    logger.error("home.wake-failed", { message: `notebook ${handle} failed: password=hunter2`, nested: [`Bearer abcdefgh12345678 for ${handle}`] });
    expect(lines[0]).not.toContain(handle);
    expect(lines[0]).not.toContain("hunter2");
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: "notebook [redacted] failed: password=[redacted]", nested: ["Bearer [redacted] for [redacted]"] });
  });

  it("masks a handle that straddles the cut, and still says the line was cut", () => {
    const { logger, lines } = capture();
    const text = `${"a ".repeat((MAX_LOGGED_STRING - 10) / 2)}${handle}${" tail".repeat(1_000)}`;
    logger.info("e", { text });
    const written: string = JSON.parse(lines[0]!).text;
    expect(written).not.toMatch(/0123456789/);
    expect(written).toMatch(/…\(\+\d+ chars\)$/);
  });

  it("writes the server's own text (a trace id) whole", () => {
    const { logger, lines } = capture();
    logger.error("handler.error", { traceId: serverText(handle) });
    expect(JSON.parse(lines[0]!).traceId).toBe(handle);
  });
});
