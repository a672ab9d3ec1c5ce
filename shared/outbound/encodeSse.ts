/**
 * Server-Sent Events framing (WHATWG HTML, "Server-sent events"), built so that no value can
 * inject a field or an event: `event` and `id` refuse CR, LF and NUL (an id with NUL is ignored
 * by browsers; with CR/LF it would start a new field), and `data` is split on every line break
 * so each line gets its own `data:` prefix. Keepalives are `:` comments, which clients ignore.
 *
 * @example encodeSse({ event: "message", data: '{"a":1}' }) // "event: message\ndata: {\"a\":1}\n\n"
 */
import { utf8Length } from "../bytes/utf8Length.ts";

export interface SseEvent {
  event?: string;
  id?: string;
  data: string;
  /** Reconnection delay hint in milliseconds. */
  retry?: number;
}

const FORBIDDEN_IN_FIELD = /[\r\n\0]/;
const LINE_BREAK = /[\r\n]/;
const encoder = new TextEncoder();

/** The response headers of every SSE stream this server opens. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Tells buffering reverse proxies (nginx and kin) to pass events through at once.
  "x-accel-buffering": "no",
};

/**
 * One JSON-RPC message (its JSON text) as an SSE `message` event, ready for the wire. The text is
 * encoded straight into the frame, around its head and tail: joining them first would make a
 * second copy of a large reply on the JavaScript heap for every message.
 */
export function sseMessage(json: string, id?: string): Uint8Array {
  const event: SseEvent = id === undefined ? { event: "message", data: json } : { event: "message", id, data: json };
  // Only JSON with a raw line break (never JSON.stringify's) needs a data: line per line.
  if (LINE_BREAK.test(json)) return encoder.encode(encodeSse(event));
  const head = encoder.encode(encodeSse({ ...event, data: "" }).slice(0, -2));
  const frame = new Uint8Array(head.length + utf8Length(json) + 2);
  frame.set(head);
  encoder.encodeInto(json, frame.subarray(head.length));
  frame[frame.length - 2] = 10;
  frame[frame.length - 1] = 10;
  return frame;
}

export function encodeSse(event: SseEvent): string {
  let out = "";
  if (event.event !== undefined) out += `event: ${field("event", event.event)}\n`;
  if (event.id !== undefined) out += `id: ${field("id", event.id)}\n`;
  if (event.retry !== undefined) {
    if (!Number.isInteger(event.retry) || event.retry < 0) throw new TypeError(`SSE retry must be a non-negative integer, got ${event.retry}`);
    out += `retry: ${event.retry}\n`;
  }
  // JSON text never holds a raw line break; only other data needs splitting.
  if (!LINE_BREAK.test(event.data)) return `${out}data: ${event.data}\n\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return out + "\n";
}

/** A comment line; proxies see bytes flowing and clients ignore it. */
export function encodeSseComment(text = ""): string {
  return text.split(/\r\n|\r|\n/).map((line) => `: ${line}\n`).join("") + "\n";
}

/** The keepalive every idle SSE stream sends. */
export const SSE_KEEPALIVE: Uint8Array = encoder.encode(encodeSseComment("keepalive"));

function field(name: string, value: string): string {
  if (FORBIDDEN_IN_FIELD.test(value)) {
    throw new TypeError(`SSE ${name} must not contain CR, LF or NUL: ${JSON.stringify(value)}`);
  }
  return value;
}
