/**
 * The RFC 5424 severities MCP uses for `logging/setLevel` and `notifications/message`, least
 * severe first, so that "at or above" is an index comparison. The operator log reuses them.
 */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** @example atLeast("error", "warning") // true: an error passes a "warning" threshold */
export function atLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
