/**
 * Reading what a server started with `captureLogs: true` (`scripts/startServer.mjs`) logged, so a
 * test asserts on the error lines its server writes on purpose instead of printing them (issue 21).
 * Both runtimes write the same JSON lines (`shared/log/Logger.ts`); workerd adds lines of its own
 * (reports of clients that left), which are not JSON and are left out here.
 */

/** Session and task ids are 128 random bits as 32 lowercase hex digits (`newSessionId`): a log line holds only their short log id. */
const MINTED_ID = /[0-9a-f]{32}/;

export type LogLine = Record<string, unknown>;

/** The JSON lines among `lines`, parsed; other lines (workerd's own) are skipped. */
export function jsonLines(lines: string[]): LogLine[] {
  return lines.flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/** The `handler.error` lines of `tool`, in the order they were logged. */
export function handlerErrors(lines: string[], tool: string): LogLine[] {
  return jsonLines(lines).filter((line) => line.event === "handler.error" && line.tool === tool);
}

/** Whether a line holds a whole session or task id, which must stay out of logs (only `logId`s go in). */
export function holdsMintedId(line: LogLine): boolean {
  return MINTED_ID.test(JSON.stringify(line));
}

/**
 * workerd's report of a client that closed its connection while a response was being written (an
 * HTTP+SSE client closing its stream: no request ends such a session). workerd prints it with a
 * `stack:` line of addresses after it.
 */
const CLIENT_LEFT = /disconnected: ::write\(fd, buffer\.begin\(\), buffer\.size\(\)\): Broken pipe$/;
const WORKERD_STACK = /^stack:( \S+@[0-9a-f]+)+$/;

/**
 * The captured lines a test has not accounted for: anything but the JSON `events` it expects and
 * workerd's reports of clients that left. A test asserts this is empty, so capturing a server's
 * lines hides no real error.
 */
export function unexplained(lines: string[], events: string[]): string[] {
  const left: string[] = [];
  let afterClientLeft = false;
  for (const line of lines) {
    const followsReport = afterClientLeft && WORKERD_STACK.test(line);
    afterClientLeft = CLIENT_LEFT.test(line);
    if (afterClientLeft || followsReport) continue;
    const [parsed] = jsonLines([line]);
    if (parsed && events.includes(String(parsed.event))) continue;
    left.push(line);
  }
  return left;
}
