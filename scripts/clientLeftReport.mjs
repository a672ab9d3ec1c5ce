/**
 * Recognises workerd's report of a client that left while a response was being written to it: an
 * HTTP+SSE client closing its stream (no request ends such a session), or a dropped Streamable
 * HTTP stream. The write fails with a broken pipe when the client closed its connection, or with a
 * connection reset when it reset it. workerd logs it at error level whatever its verbosity, with
 * `stack:` lines of addresses after it. It says the peer left, nothing about the server, and
 * whether it is printed depends on timing (was a write under way?), so `startServer` does not
 * print it and captured lines count it as explained (`test/support/serverLogs.ts`).
 *
 * Only that report: every other workerd line, and every line a Worker logs, is printed or kept.
 */

/** The report itself, as workerd 1.2026 words it: `::write` or `::writev`, the peer gone either way. */
export const CLIENT_LEFT = /disconnected: ::writev?\(fd, .*\): (Broken pipe|Connection reset by peer)$/;
/** A line of return addresses workerd prints after a report (one or more). */
export const WORKERD_STACK = /^stack:( \S+@[0-9a-f]+)+$/;

/**
 * A filter for one stream's lines, in order: false for a client-left report and the stack lines
 * right after it, true for anything else.
 * @example
 * const keep = clientLeftFilter();
 * lines.filter(keep);
 */
export function clientLeftFilter() {
  let inReport = false;
  return (line) => {
    inReport = CLIENT_LEFT.test(line) || (inReport && WORKERD_STACK.test(line));
    return !inReport;
  };
}
