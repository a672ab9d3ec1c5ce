import { describe, expect, it } from "vitest";
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from "./traceparent.ts";

const VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceparent", () => {
  it("reads a version-00 value and writes it back the same", () => {
    const context = parseTraceparent(VALID);
    expect(context).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", flags: 1 });
    expect(formatTraceparent(context!)).toBe(VALID);
  });

  it("reads a later version by its first four fields", () => {
    expect(parseTraceparent(`01-${VALID.slice(3)}-extra`)?.spanId).toBe("00f067aa0ba902b7");
  });

  it.each([
    ["not a string", 42],
    ["upper-case hex", VALID.toUpperCase()],
    ["a zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
    ["a zero span id", `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`],
    ["version ff", `ff-${VALID.slice(3)}`],
    ["version 00 with a fifth field", `${VALID}-00`],
    ["a short trace id", "00-4bf92f-00f067aa0ba902b7-01"],
    ["a huge value", `${VALID}${"x".repeat(1000)}`],
  ])("ignores %s", (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("makes ids of the right length that parse", () => {
    const context = { traceId: newTraceId(), spanId: newSpanId(), flags: 0 };
    expect(parseTraceparent(formatTraceparent(context))).toEqual(context);
  });
});
