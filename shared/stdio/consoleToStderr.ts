/**
 * While a stdio server runs, `console.log`, `console.info` and `console.debug` write to
 * `console.error` (stderr on Node, Deno and Bun): stdout carries MCP messages and nothing else
 * (transports spec, "stdio"), and a handler's stray `console.log` would put a line there that
 * no client can parse. Deno's entry (`serveDenoStdio`) does this for the whole process; this is
 * the same for `serveStdio` on any runtime, undone when serving ends.
 *
 * Counted: overlapping servers in one process (tests do this) share one redirection, undone
 * when the last one ends. Not covered: writers that bypass these three (`console.dir`,
 * `console.table` on Node, `process.stdout.write`); keep them out of handlers.
 */

type Writer = (...data: unknown[]) => void;

let holders = 0;
let saved: { log: Writer; info: Writer; debug: Writer } | undefined;

/** Redirects the three console levels to `console.error`; returns the undo, which does its part once. */
export function consoleToStderr(): () => void {
  if (holders++ === 0) {
    saved = { log: console.log, info: console.info, debug: console.debug };
    console.log = console.info = console.debug = console.error;
  }
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    if (--holders === 0 && saved) {
      Object.assign(console, saved);
      saved = undefined;
    }
  };
}
