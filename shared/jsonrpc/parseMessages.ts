/**
 * Text → validated JSON-RPC messages, or an `McpError` value saying exactly what is wrong.
 *
 * Order matters: nesting depth is measured on the raw text before `JSON.parse`, so a hostile
 * `[[[[…` never reaches a recursive parser. A body may be one message or a batch (an array):
 * 2024-11-05 and 2025-03-26 clients may batch. Validation does not mutate: the messages handed
 * on are the parsed objects as sent (`invalidMessage` only checks them), minus nothing.
 *
 * Not here: size limits and UTF-8 decoding (`readBody()`), session routing.
 */
import { McpError } from "../errors/McpError.ts";
import { invalidMessage, type JsonRpcMessage, type RequestId } from "./messages.ts";

/** Deeper than any real MCP message; a cheap guard against stack-exhausting input. */
export const MAX_JSON_DEPTH = 64;
/** A batch larger than this is refused whole: it would monopolise the session. */
export const MAX_BATCH_MESSAGES = 100;

export type ParsedBody =
  | { ok: true; messages: JsonRpcMessage[]; batch: boolean }
  | { ok: false; error: McpError; id: RequestId | null };

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

export function parseMessages(text: string): ParsedBody {
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    return fail(McpError.invalidRequest(`JSON nesting depth ${depth} exceeds the limit of ${MAX_JSON_DEPTH}`));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return fail(McpError.parse(`Parse error: ${(e as Error).message}`));
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return fail(McpError.invalidRequest("Invalid Request: empty batch"));
    if (value.length > MAX_BATCH_MESSAGES) {
      return fail(McpError.invalidRequest(`Invalid Request: batch of ${value.length} messages exceeds the limit of ${MAX_BATCH_MESSAGES}`));
    }
    const messages: JsonRpcMessage[] = [];
    for (const [index, item] of value.entries()) {
      const one = validate(item, `batch item ${index}: `);
      if (!one.ok) return one;
      messages.push(one.message);
    }
    return { ok: true, messages, batch: true };
  }
  const one = validate(value, "");
  return one.ok ? { ok: true, messages: [one.message], batch: false } : one;
}

function validate(
  value: unknown,
  where: string,
): { ok: true; message: JsonRpcMessage } | { ok: false; error: McpError; id: RequestId | null } {
  const invalid = invalidMessage(value);
  if (invalid === undefined) return { ok: true, message: value as JsonRpcMessage };
  return fail(McpError.invalidRequest(`Invalid Request: ${where}${invalid}`), idOf(value));
}

function idOf(value: unknown): RequestId | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function fail(error: McpError, id: RequestId | null = null): { ok: false; error: McpError; id: RequestId | null } {
  return { ok: false, error, id };
}
