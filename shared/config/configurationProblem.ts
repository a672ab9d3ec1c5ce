/**
 * The sentence a deployment whose configuration cannot be used is reported with, on every
 * runtime: a variable `readConfig` refuses (it names the variable and what it must be), a
 * `REQUEST_STATE_SECRET` too short, malformed `authorization` or `rateLimits` options. Said
 * like a definition's problem ("The server definition is invalid: …"), so an operator reads
 * both the same way: Workers answer it on every route and log it once (`config.invalid`), Deno
 * refuses to start with it.
 */

/** @example configurationProblem(new RangeError('MAX_QUEUE_BYTES must be a positive integer, got "4MiB"')).message */
export function configurationProblem(error: unknown): Error {
  return new Error(`The configuration is invalid: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
