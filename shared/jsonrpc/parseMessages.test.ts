import { describe, it, expect } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { MAX_BATCH_MESSAGES, MAX_JSON_DEPTH, jsonDepth, parseMessages } from "./parseMessages.ts";

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

/** The failure of a body that must be refused; fails the test if it was accepted. */
function refused(text: string) {
  const parsed = parseMessages(text);
  if (parsed.ok) throw new Error(`expected ${text.slice(0, 80)} to be refused`);
  return parsed;
}

describe("parseMessages: valid bodies", () => {
  it.each([
    ["request", { jsonrpc: "2.0", id: "a-1", method: "tools/call", params: { name: "x" } }],
    ["request with a numeric id and no params", ping],
    ["notification", { jsonrpc: "2.0", method: "notifications/initialized" }],
    ["result response", { jsonrpc: "2.0", id: 3, result: {} }],
    ["error response", { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "nope" } }],
    ["error response with a null id", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "bad" } }],
  ])("accepts a %s as one message, unchanged", (_name, message) => {
    expect(parseMessages(JSON.stringify(message))).toEqual({ ok: true, value: { messages: [message], batch: false, size: JSON.stringify(message).length } });
  });

  it("accepts a batch and keeps its order", () => {
    const batch = [ping, { jsonrpc: "2.0", method: "notifications/initialized" }, { ...ping, id: 2 }];
    expect(parseMessages(JSON.stringify(batch))).toEqual({ ok: true, value: { messages: batch, batch: true, size: JSON.stringify(batch).length } });
  });

  it("accepts a batch of exactly MAX_BATCH_MESSAGES", () => {
    const batch = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => ({ ...ping, id: i }));
    const parsed = parseMessages(JSON.stringify(batch));
    expect(parsed.ok && parsed.value.messages.length).toBe(MAX_BATCH_MESSAGES);
  });

  it("does not strip unknown members (the message is handed on as sent)", () => {
    const parsed = parseMessages(JSON.stringify({ ...ping, extra: true }));
    expect(parsed.ok && parsed.value.messages[0]).toEqual({ ...ping, extra: true });
  });
});

describe("parseMessages: refused bodies", () => {
  it("answers invalid JSON with -32700 and HTTP 400", () => {
    const { error, id } = refused('{"jsonrpc": "2.0",');
    expect(error.code).toBe(ErrorCode.ParseError);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Parse error: /);
    expect(id).toBeNull();
  });

  it("refuses an empty batch", () => {
    const { error } = refused("[]");
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.status).toBe(400);
    expect(error.message).toContain("empty batch");
  });

  it("refuses a batch over MAX_BATCH_MESSAGES whole", () => {
    const batch = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => ({ ...ping, id: i }));
    const { error } = refused(JSON.stringify(batch));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain(`${MAX_BATCH_MESSAGES + 1} messages`);
  });

  it("refuses a batch with one bad item, naming the item", () => {
    const { error, id } = refused(JSON.stringify([ping, { jsonrpc: "2.0", id: 9, method: "" }]));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain("batch item 1");
    expect(id).toBe(9);
  });

  it.each([
    ["missing", { id: 5, method: "ping" }, 5],
    ['"1.0"', { jsonrpc: "1.0", id: "req-5", method: "ping" }, "req-5"],
  ])("refuses jsonrpc %s with -32600 and echoes the id", (_name, message, echoed) => {
    const { error, id } = refused(JSON.stringify(message));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain('"jsonrpc" member must be exactly "2.0"');
    expect(id).toBe(echoed);
  });

  it("answers with a null id when the id itself is unreadable", () => {
    const { id } = refused(JSON.stringify({ jsonrpc: "1.0", id: { nested: 1 }, method: "ping" }));
    expect(id).toBeNull();
  });

  it("refuses params given as an array", () => {
    const { error, id } = refused(JSON.stringify({ ...ping, params: [1, 2] }));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain('"params" must be an object');
    expect(id).toBe(1);
  });

  it.each([["a number", "42"], ["a string", '"ping"'], ["null", "null"], ["a nested array", "[[1]]"]])(
    "refuses %s with -32600",
    (_name, text) => {
      const { error } = refused(text);
      expect(error.code).toBe(ErrorCode.InvalidRequest);
      expect(error.message).toContain("must be a JSON object");
    },
  );

  it("refuses a message that is neither a request nor a response", () => {
    const { error } = refused(JSON.stringify({ jsonrpc: "2.0", id: 1 }));
    expect(error.message).toContain('needs "method"');
  });

  // A zod object strips unknown keys, so `{"id": null, "method": …}` would pass for a
  // notification if schemas were merely tried in turn; the session would then see a request.
  it.each([
    ["null", null],
    ["an object", { a: 1 }],
    ["a boolean", true],
  ])("refuses a request whose id is %s with -32600", (_name, badId) => {
    const { error, id } = refused(JSON.stringify({ jsonrpc: "2.0", id: badId, method: "ping" }));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain('a request "id" must be a string or a number');
    expect(id).toBeNull();
  });

  it("refuses nesting deeper than MAX_JSON_DEPTH before parsing, without throwing", () => {
    const hostile = "[".repeat(100_000);
    let parsed: ReturnType<typeof parseMessages> | undefined;
    expect(() => (parsed = parseMessages(hostile))).not.toThrow();
    expect(parsed?.ok).toBe(false);
    if (parsed?.ok === false) {
      expect(parsed.error.code).toBe(ErrorCode.InvalidRequest);
      expect(parsed.error.message).toContain(`depth 100000 exceeds the limit of ${MAX_JSON_DEPTH}`);
    }
  });

  it("puts the depth limit exactly at MAX_JSON_DEPTH", () => {
    const nested = (depth: number) => {
      // The message is level 1 and its params level 2; each wrap adds one level below.
      let params: Record<string, unknown> = {};
      for (let level = 2; level < depth; level++) params = { v: params };
      return JSON.stringify({ ...ping, params });
    };
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    expect(parseMessages(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(refused(nested(MAX_JSON_DEPTH + 1)).error.code).toBe(ErrorCode.InvalidRequest);
  });
});

describe("jsonDepth", () => {
  it.each([
    ["a scalar", "1", 0],
    ["a flat object", '{"a":1}', 1],
    ["mixed nesting", '{"a":[{"b":[]}],"c":{}}', 4],
    ["siblings, not nesting", "[[],[],[]]", 2],
  ])("measures %s", (_name, text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });

  it("ignores brackets inside strings", () => {
    expect(jsonDepth('["[[[{{{", "]]]"]')).toBe(1);
  });

  it("ignores brackets after an escaped quote inside a string", () => {
    // The string is `a"[[[`: its escaped quote must not end it.
    expect(jsonDepth('["a\\"[[[", [1]]')).toBe(2);
  });

  it("ends a string after an escaped backslash", () => {
    // The string is `a\`: the quote after the escaped backslash closes it, so `[[` counts.
    expect(jsonDepth('["a\\\\", [[1]]]')).toBe(3);
  });
});
