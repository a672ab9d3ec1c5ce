/**
 * Text → validated JSON-RPC messages, or an `McpError` value saying exactly what is wrong.
 *
 * Order matters: nesting depth is measured on the raw text before `JSON.parse`, so a hostile
 * `[[[[…` never reaches a recursive parser. A body may be one message or a batch (an array):
 * 2024-11-05 and 2025-03-26 clients may batch. Validation does not mutate: the messages handed
 * on are the parsed objects as sent (`invalidMessage` only checks them), minus nothing.
 *
 * Not here: size limits and UTF-8 decoding (`readBody.ts`), session routing.
 */
import { type Checked, passed, type Refused, refused } from "../errors/Checked.ts";
import { McpError } from "../errors/McpError.ts";
import { invalidMessage, type JsonRpcMessage, type RequestId } from "./messages.ts";

/** Deeper than any real MCP message; a cheap guard against stack-exhausting input. */
export const MAX_JSON_DEPTH = 64;
/** A batch larger than this is refused whole: it would monopolise the session. */
export const MAX_BATCH_MESSAGES = 100;

/** One message or a batch, as the client sent it. */
export interface Parsed {
  messages: JsonRpcMessage[];
  batch: boolean;
  /** The text's length: what holding these messages costs, within a factor of two (a session reserves it at admission). */
  size: number;
}

/** Scans for `[`/`{` depth outside strings; linear, allocation-free. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A refusal carries the id of the request it names when one could be read (else null). */
export function parseMessages(text: string): Checked<Parsed> {
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    return refused(McpError.invalidRequest(`JSON nesting depth ${depth} exceeds the limit of ${MAX_JSON_DEPTH}`), null);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return refused(McpError.parse(`Parse error: ${(e as Error).message}`), null);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return refused(McpError.invalidRequest("Invalid Request: empty batch"), null);
    if (value.length > MAX_BATCH_MESSAGES) {
      return refused(McpError.invalidRequest(`Invalid Request: batch of ${value.length} messages exceeds the limit of ${MAX_BATCH_MESSAGES}`), null);
    }
    for (const [index, item] of value.entries()) {
      const invalid = refusal(item, `batch item ${index}: `);
      if (invalid) return invalid;
    }
    return passed({ messages: value as JsonRpcMessage[], batch: true, size: text.length });
  }
  return refusal(value, "") ?? passed({ messages: [value as JsonRpcMessage], batch: false, size: text.length });
}

/** The refusal of a value that is not a JSON-RPC message, naming where it stood; undefined for a message. */
function refusal(value: unknown, where: string): Refused | undefined {
  const invalid = invalidMessage(value);
  return invalid === undefined ? undefined : refused(McpError.invalidRequest(`Invalid Request: ${where}${invalid}`), idOf(value));
}

function idOf(value: unknown): RequestId | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
