/**
 * Structured operator logs: one JSON object per line, `{"level","event",...fields}`, written
 * through `console` so Workers Logs, `wrangler tail`, Deno and Node all capture them. A child
 * logger carries fixed fields (the session id), so every line of a session can be grepped.
 *
 * Events are dotted names (`session.open`, `rpc.out`, `queue.full`); the README lists them.
 * Not the MCP `notifications/message` channel: that goes to clients, this goes to operators.
 */
import { atLeast, type LogLevel } from "../protocol/logLevels.ts";

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
    this.sink(JSON.stringify({ level, event, ...this.fields, ...fields }), level);
  }
}
