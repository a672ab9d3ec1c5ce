/**
 * Text → validated JSON-RPC messages, or an `McpError` value saying exactly what is wrong.
 *
 * Order matters: nesting depth is measured on the raw text before `JSON.parse`, so a hostile
 * `[[[[…` never reaches a recursive parser. A body may be one message or a batch (an array):
 * 2024-11-05 and 2025-03-26 clients may batch. Validation does not mutate: the messages handed
 * on are the parsed objects as sent (zod only checks them), minus nothing.
 *
 * Not here: size limits and UTF-8 decoding (`readBody()`), session routing.
 */
import { z } from "zod";
import { McpError } from "../errors/McpError.ts";
import {
  type JsonRpcMessage,
  type RequestId,
  JsonRpcErrorResponseSchema,
  JsonRpcNotificationSchema,
  JsonRpcRequestSchema,
  JsonRpcResultResponseSchema,
} from "./messages.ts";

/** Deeper than any real MCP message; a cheap guard against stack-exhausting input. */
export const MAX_JSON_DEPTH = 64;
/** A batch larger than this is refused whole: it would monopolise the session. */
export const MAX_BATCH_MESSAGES = 100;

/**
 * The schema a value must match is chosen by its shape, not tried in turn: a value with
 * `method` and `id` is a request even when its id is bad (an object schema that strips unknown
 * keys would otherwise pass `{"id": null, "method": …}` off as a notification).
 */
function schemaFor(value: Record<string, unknown>): z.ZodType {
  if ("method" in value) return "id" in value ? JsonRpcRequestSchema : JsonRpcNotificationSchema;
  return "error" in value ? JsonRpcErrorResponseSchema : JsonRpcResultResponseSchema;
}

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
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  if (isObject && schemaFor(value as Record<string, unknown>).safeParse(value).success) {
    return { ok: true, message: value as JsonRpcMessage };
  }
  return fail(McpError.invalidRequest(`Invalid Request: ${where}${describe(value)}`), idOf(value));
}

/** The most useful single reason a value is not a JSON-RPC message. */
function describe(value: unknown): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "a JSON-RPC message must be a JSON object";
  }
  const v = value as Record<string, unknown>;
  if (v.jsonrpc !== "2.0") return 'the "jsonrpc" member must be exactly "2.0"';
  if ("id" in v && (v.id === null || !["string", "number"].includes(typeof v.id)) && "method" in v) {
    return 'a request "id" must be a string or a number';
  }
  if ("method" in v && (typeof v.method !== "string" || v.method === "")) {
    return '"method" must be a non-empty string';
  }
  if ("params" in v && (typeof v.params !== "object" || v.params === null || Array.isArray(v.params))) {
    return '"params" must be an object';
  }
  if (!("method" in v) && !("result" in v) && !("error" in v)) {
    return 'a message needs "method" (request or notification) or "result"/"error" (response)';
  }
  return "the message does not match any JSON-RPC 2.0 shape";
}

function idOf(value: unknown): RequestId | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function fail(error: McpError, id: RequestId | null = null): { ok: false; error: McpError; id: RequestId | null } {
  return { ok: false, error, id };
}
