/**
 * Newline-delimited JSON framing for the MCP stdio transport (transports spec, "stdio"): each
 * message is one line of JSON ending in "\n", and "MUST NOT contain embedded newlines".
 *
 * `JSON.stringify` never emits a raw CR or LF (they are escaped inside strings), but it does emit
 * U+2028 and U+2029 raw, and some line readers (older Node `readline`, editors, log viewers)
 * break lines there. They are escaped as `\u2028`/`\u2029`, which is the same JSON value. A CR
 * or LF in the text means it was not produced by `JSON.stringify`: refused, never split.
 *
 * Not here: SSE framing (`encodeSse`), splitting input into lines (`splitLines`).
 *
 * @example encodeLine('{"jsonrpc":"2.0","id":1,"result":{}}') // '{"jsonrpc":"2.0","id":1,"result":{}}\n'
 */

const LINE_BREAK = /[\r\n]/;
const UNICODE_LINE_BREAK = /[\u2028\u2029]/g;

/** One JSON text (as from `JSON.stringify`) → one line, terminator included. */
export function encodeLine(json: string): string {
  if (LINE_BREAK.test(json)) {
    throw new TypeError(`A newline-delimited JSON frame must not contain CR or LF; got ${JSON.stringify(json.slice(0, 80))}…`);
  }
  return json.replace(UNICODE_LINE_BREAK, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029")) + "\n";
}
