/**
 * Recognises workerd's report of a client that closed its connection while a response was being
 * written to it: an HTTP+SSE client closing its stream (no request ends such a session), or a
 * dropped Streamable HTTP stream. workerd logs it at error level whatever its verbosity, with a
 * `stack:` line of addresses after it. It says the peer left, nothing about the server, and
 * whether it is printed depends on timing (was a write under way?), so `startServer` does not
 * print it (issue 21) and captured lines count it as explained (`test/support/serverLogs.ts`).
 *
 * Only that report: every other workerd line, and every line a Worker logs, is printed or kept.
 */

/** The report itself, as workerd 1.2026 words it. */
export const CLIENT_LEFT = /disconnected: ::write\(fd, buffer\.begin\(\), buffer\.size\(\)\): Broken pipe$/;
/** The line of return addresses workerd prints after a report. */
export const WORKERD_STACK = /^stack:( \S+@[0-9a-f]+)+$/;

/**
 * A filter for one stream's lines, in order: false for a client-left report and the stack line
 * right after it, true for anything else.
 * @example
 * const keep = clientLeftFilter();
 * lines.filter(keep);
 */
export function clientLeftFilter() {
  let afterReport = false;
  return (line) => {
    const stackOfReport = afterReport && WORKERD_STACK.test(line);
    afterReport = CLIENT_LEFT.test(line);
    return !(afterReport || stackOfReport);
  };
}
