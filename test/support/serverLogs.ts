/**
 * Reading what a server started with `captureLogs: true` (`scripts/startServer.mjs`) logged, so a
 * test asserts on the error lines its server writes on purpose instead of printing them. Both
 * runtimes write the same JSON lines (`shared/log/Logger.ts`); workerd adds lines of its own
 * (reports of clients that left), which are not JSON and are left out here. Every test that
 * counts the lines it cannot explain counts them with `unexplained`, so platform noise is sorted
 * from real errors in one place (`scripts/clientLeftReport.mjs`).
 */
import { clientLeftFilter, WORKERD_STACK } from "../../scripts/clientLeftReport.mjs";

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
 * The captured lines a test has not accounted for: anything but the JSON `events` it expects,
 * workerd's `reports` it provokes on purpose, and workerd's reports of clients that left (each
 * with the stack lines after it). A test
 * asserts this is empty, so capturing a server's lines hides no real error.
 */
export function unexplained(lines: string[], { events = [], reports = [] }: { events?: string[]; reports?: RegExp[] } = {}): string[] {
  const left: string[] = [];
  const notClientLeft = clientLeftFilter();
  let inReport = false;
  for (const line of lines) {
    inReport = reports.some((report) => report.test(line)) || (inReport && WORKERD_STACK.test(line));
    if (!notClientLeft(line) || inReport || line === "") continue;
    const [parsed] = jsonLines([line]);
    if (parsed && events.includes(String(parsed.event))) continue;
    left.push(line);
  }
  return left;
}
