/**
 * How a Deno entry (`serveDeno`, `serveDenoStdio`) refuses to start: one JSON line on stderr
 * with the sentence that says what is wrong and what to do, then exit 1 — before it binds its
 * port or reads a line. Deno's own report of a rejected promise ("error: Uncaught (in promise)", the
 * source line, a dozen stack frames) would bury that sentence, and with an `unhandledrejection`
 * listener (`logUnhandledRejections`) the process would exit 0 without serving.
 *
 * The events are those a Worker logs for the same problems: `definition.invalid`,
 * `config.homes`, `config.invalid` (a malformed variable or flag); and `start.failed`, the
 * address or store the process was given refused it (`startFailure.ts`). The line is written whatever
 * `LOG_LEVEL` says: that variable may be the malformed one. Not for failures while serving:
 * those are bugs, logged with their stack.
 */
import { reportRefusal, type StartRefusal } from "../shared/routes/serveSettings.ts";

/** Writes `{"level":"error","event":…,"message":…}` to stderr (`reportRefusal`) and exits 1. */
export function refuseToStart(event: StartRefusal["event"], problem: unknown): never {
  reportRefusal({ event, problem });
  Deno.exit(1);
}
