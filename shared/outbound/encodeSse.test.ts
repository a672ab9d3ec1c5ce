import { describe, it, expect } from "vitest";
import { encodeSse, encodeSseComment, sseMessage } from "./encodeSse.ts";

/**
 * The data of the one event in `frame`, per the WHATWG "Interpreting an event stream" rules:
 * lines end at CRLF, LF or CR; a field name runs to the first colon; one leading space of the
 * value is dropped; `data` values are joined with LF. Comments and other fields are skipped.
 */
function parseData(frame: string): string {
  const data: string[] = [];
  for (const line of frame.split(/\r\n|\r|\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") data.push(value);
  }
  return data.join("\n");
}

/** mulberry32: a tiny seeded PRNG, so a failing case can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("encodeSse", () => {
  it("writes event, id, retry and data in that order, ending with a blank line", () => {
    expect(encodeSse({ event: "message", id: "7", retry: 3000, data: '{"a":1}' })).toBe(
      'event: message\nid: 7\nretry: 3000\ndata: {"a":1}\n\n',
    );
  });

  it("writes a data-only event", () => {
    expect(encodeSse({ data: "hello" })).toBe("data: hello\n\n");
  });

  it("writes empty data as one empty data line", () => {
    expect(encodeSse({ data: "" })).toBe("data: \n\n");
  });

  it("accepts an empty event name and id", () => {
    expect(encodeSse({ event: "", id: "", data: "x" })).toBe("event: \nid: \ndata: x\n\n");
  });

  it.each([
    ["LF", "a\nb"],
    ["CRLF", "a\r\nb"],
    ["CR", "a\rb"],
  ])("splits data on %s into separate data lines", (_name, data) => {
    expect(encodeSse({ data })).toBe("data: a\ndata: b\n\n");
  });

  it("keeps empty lines, including a trailing line break", () => {
    expect(encodeSse({ data: "a\n\nb\n" })).toBe("data: a\ndata: \ndata: b\ndata: \n\n");
  });

  it("treats CRLF as one break but LF CR as two", () => {
    expect(encodeSse({ data: "a\r\nb\n\rc" })).toBe("data: a\ndata: b\ndata: \ndata: c\n\n");
  });

  it.each(["a\rb", "a\nb", "a\r\n", "a\0b"])("refuses an event name containing %j", (event) => {
    expect(() => encodeSse({ event, data: "x" })).toThrow(TypeError);
    expect(() => encodeSse({ event, data: "x" })).toThrow(/SSE event must not contain CR, LF or NUL/);
  });

  it.each(["1\r2", "1\n2", "\0"])("refuses an id containing %j", (id) => {
    expect(() => encodeSse({ id, data: "x" })).toThrow(/SSE id must not contain CR, LF or NUL/);
  });

  it("allows NUL in data, where the WHATWG parser keeps it", () => {
    expect(encodeSse({ data: "a\0b" })).toBe("data: a\0b\n\n");
  });

  it.each([0, 1, 60_000])("accepts retry %d", (retry) => {
    expect(encodeSse({ retry, data: "x" })).toBe(`retry: ${retry}\ndata: x\n\n`);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses retry %d", (retry) => {
    expect(() => encodeSse({ retry, data: "x" })).toThrow(/SSE retry must be a non-negative integer/);
  });

  it("round-trips random data through a WHATWG parser, line breaks normalised to LF", () => {
    const alphabet = ["a", "Z", " ", "  ", ":", "data: ", "event: x", "\r", "\n", "\r\n", "\n\r", "\0", "é", "😀", "\u2028", "{}"];
    const random = prng(0x5eed);
    for (let i = 0; i < 2_000; i++) {
      const length = Math.floor(random() * 12);
      let data = "";
      for (let j = 0; j < length; j++) data += alphabet[Math.floor(random() * alphabet.length)];
      const frame = encodeSse({ event: "message", data });
      expect(frame.endsWith("\n\n"), JSON.stringify(data)).toBe(true);
      // Exactly one event: the only blank line is the terminator.
      expect(frame.slice(0, -1).includes("\n\n"), JSON.stringify(data)).toBe(false);
      expect(parseData(frame), JSON.stringify(data)).toBe(data.replace(/\r\n|\r/g, "\n"));
    }
  });
});

describe("encodeSseComment", () => {
  it("writes a keepalive comment", () => {
    expect(encodeSseComment("keepalive")).toBe(": keepalive\n\n");
  });

  it("writes an empty comment by default", () => {
    expect(encodeSseComment()).toBe(": \n\n");
  });

  it("prefixes every line, so a line break cannot start a field", () => {
    expect(encodeSseComment("a\r\ndata: injected\rb")).toBe(": a\n: data: injected\n: b\n\n");
    expect(parseData(encodeSseComment("x\ndata: injected"))).toBe("");
  });
});

describe("sseMessage", () => {
  const decoder = new TextDecoder();
  it.each([
    ["ASCII", JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "a".repeat(40_000) } }), undefined],
    ["with an id", JSON.stringify({ jsonrpc: "2.0", id: 2, result: {} }), "s1.7"],
    ["outside Latin-1, and a surrogate pair", JSON.stringify({ text: "héllo — 😀 \u2028" }), "s1.8"],
    ["text with raw line breaks", '{"a":\n1}\r\n', undefined],
  ])("encodes %s exactly as the event's text", (_name, json, id) => {
    const frame = sseMessage(json, id);
    const text = id === undefined ? encodeSse({ event: "message", data: json }) : encodeSse({ event: "message", id, data: json });
    expect(decoder.decode(frame)).toBe(text);
    expect(frame.byteLength).toBe(new TextEncoder().encode(text).byteLength);
  });

  it("refuses an id that would inject a field", () => {
    expect(() => sseMessage("{}", "a\nevent: x")).toThrow(/CR, LF or NUL/);
  });
});
