import { describe, expect, it } from "vitest";
import { encodeLine } from "./encodeLine.ts";

describe("encodeLine", () => {
  it("writes the JSON text followed by one LF", () => {
    expect(encodeLine('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
  });

  it("keeps CR and LF inside strings escaped, as JSON.stringify leaves them", () => {
    const json = JSON.stringify({ text: "one\ntwo\r\nthree\rfour" });
    const line = encodeLine(json);
    expect(line.indexOf("\n")).toBe(line.length - 1);
    expect(line).not.toContain("\r");
    expect(JSON.parse(line)).toEqual({ text: "one\ntwo\r\nthree\rfour" });
  });

  it("escapes U+2028 and U+2029, which JSON.stringify emits raw, without changing the value", () => {
    const value = { text: "a\u2028b\u2029c" };
    const line = encodeLine(JSON.stringify(value));
    expect(line).toBe('{"text":"a\\u2028b\\u2029c"}\n');
    expect(JSON.parse(line)).toEqual(value);
  });

  it("refuses text with a raw CR or LF: it would be two frames", () => {
    expect(() => encodeLine('{"a":1}\n{"b":2}')).toThrow(TypeError);
    expect(() => encodeLine('{"a":1}\r')).toThrow(/must not contain CR or LF/);
  });

  it("round-trips any string through JSON.stringify as exactly one line", () => {
    let all = "";
    for (let code = 0; code < 0x3000; code++) all += String.fromCharCode(code);
    const line = encodeLine(JSON.stringify({ all }));
    expect(line.split("\n")).toHaveLength(2);
    expect(line).not.toMatch(/[\r\u2028\u2029]/);
    expect(JSON.parse(line).all).toBe(all);
  });
});
