/**
 * Structured operator logs: one JSON object per line, `{"level","event",...fields}`, written
 * through `console` so Workers Logs, `wrangler tail`, Deno and Node all capture them. A child
 * logger carries fixed fields (the session's `logId` tag, never the id itself, which is a bearer
 * secret), so every line of a session can be grepped.
 *
 * Field values may come from clients (a cancellation `reason`, a tool name), so every string, at
 * any depth, is cut to `MAX_LOGGED_STRING` characters when a line is written: one request cannot
 * turn into a multi-megabyte log line. The server's own sentences (a definition's or the
 * configuration's problem, which end with their fix) are passed as `serverText(…)` and written
 * whole, up to `MAX_LOGGED_SERVER_TEXT`. Every other string is passed through `redact` before it
 * is cut (a handler's error naming its handle, a password in a storage error): the same masking a
 * span's status gets. Lines below the level cost nothing (`enabled()` allocates nothing). Secrets
 * should still not be passed as fields: redaction is a net for what has a telling shape.
 *
 * Events are dotted names (`session.open`, `rpc.out`, `queue.full`); docs/operations.md lists them.
 * Not the MCP `notifications/message` channel: that goes to clients, this goes to operators.
 */
import { atLeast, type LogLevel } from "../protocol/logLevels.ts";
import { redactHead, STRADDLE_CHARS } from "./redact.ts";

/**
 * Longest string field value written whole, in UTF-16 code units. A longer one keeps this many
 * and ends with `…(+N chars)`, N being how many were cut.
 */
export const MAX_LOGGED_STRING = 256;

/**
 * Longest `serverText` written whole, in UTF-16 code units. The server's sentences run to a few
 * hundred characters; this bounds one that quotes something long from the definition.
 */
export const MAX_LOGGED_SERVER_TEXT = 4_096;

/** A sentence the server wrote, not a client: logged whole up to `MAX_LOGGED_SERVER_TEXT`. Make one with `serverText`. */
export class ServerText {
  constructor(readonly text: string) {}
}

/** @example logger.error("definition.invalid", { message: serverText(problem.message) }) */
export function serverText(text: string): ServerText {
  return new ServerText(text);
}

export type LogFields = Record<string, unknown>;
export type LogSink = (line: string, level: LogLevel) => void;

const consoleSink: LogSink = (line, level) => {
  if (atLeast(level, "error")) console.error(line);
  else if (level === "warning") console.warn(line);
  else console.log(line);
};

/**
 * Every level to `console.error`, which is stderr in Node and Deno: for the stdio transport,
 * where stdout carries MCP messages and nothing else (transports spec, "stdio").
 */
export const stderrSink: LogSink = (line) => console.error(line);

export class Logger {
  constructor(
    readonly level: LogLevel = "info",
    private readonly fields: LogFields = {},
    private readonly sink: LogSink = consoleSink,
  ) {}

  /** Whether a line at `level` would be written: for fields that cost something to build. */
  enabled(level: LogLevel): boolean {
    return atLeast(level, this.level);
  }

  child(fields: LogFields): Logger {
    return new Logger(this.level, { ...this.fields, ...fields }, this.sink);
  }

  debug(event: string, fields?: LogFields): void {
    this.write("debug", event, fields);
  }
  info(event: string, fields?: LogFields): void {
    this.write("info", event, fields);
  }
  warn(event: string, fields?: LogFields): void {
    this.write("warning", event, fields);
  }
  error(event: string, fields?: LogFields): void {
    this.write("error", event, fields);
  }

  private write(level: LogLevel, event: string, fields?: LogFields): void {
    if (!atLeast(level, this.level)) return;
    this.sink(JSON.stringify({ level, event, ...this.fields, ...fields }, clipStrings), level);
  }
}

/**
 * `JSON.stringify` replacer: redacts and cuts every string, at any depth, without copying the
 * fields; a `ServerText` becomes its text, cut at the higher bound and not redacted (a string the
 * replacer returns is written as it is, not passed through the replacer again).
 */
function clipStrings(_key: string, value: unknown): unknown {
  if (value instanceof ServerText) return clip(value.text, value.text, MAX_LOGGED_SERVER_TEXT);
  return typeof value === "string" ? clip(value, redactHead(value, MAX_LOGGED_STRING), MAX_LOGGED_STRING) : value;
}

/**
 * `text` (what is written of `original`) cut to `max` units, saying how many of the original's are
 * gone. The cut does not split a surrogate pair, so no lone surrogate (written as `\udXXX`) ends
 * up in the line.
 */
function clip(original: string, text: string, max: number): string {
  // `redactHead` drops what lies past its slack: then the line says so even if the rest is short.
  const dropped = original.length > max + STRADDLE_CHARS;
  if (text.length <= max && !dropped) return text;
  const last = text.charCodeAt(Math.min(max, text.length) - 1);
  const keep = Math.min(max, text.length) - (last >= 0xd800 && last <= 0xdbff ? 1 : 0);
  return `${text.slice(0, keep)}…(+${Math.max(1, original.length - keep)} chars)`;
}
