/**
 * The sentence for a process that could not start serving a definition it accepted: the address
 * it was to bind refused it (in use, not this machine's, not permitted), or a store it was
 * given could not be opened. Deno and Node write it as their one line on stderr
 * (`start.failed`) and exit 1, as for the other refusals (`reportRefusal`). Not for failures
 * while serving.
 */

/** Where the process was to bind, as the sentence names it. */
export interface BindAddress {
  hostname: string;
  port: number;
}

/**
 * `error`, thrown while binding `at`, as a sentence that says what to do.
 *
 * @example bindFailure(new Deno.errors.AddrInUse("…"), { hostname: "127.0.0.1", port: 8787 }).message
 * // "Cannot bind 127.0.0.1:8787: the port is in use by another process; stop it, or pass another --port (0 picks a free one)"
 */
export function bindFailure(error: unknown, at: BindAddress): Error {
  const where = `${at.hostname.includes(":") ? `[${at.hostname}]` : at.hostname}:${at.port}`;
  const { name, code, message } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  // Deno names the error class (AddrInUse); Node gives the system's code (EADDRINUSE).
  if (name === "AddrInUse" || code === "EADDRINUSE") {
    return new Error(`Cannot bind ${where}: the port is in use by another process; stop it, or pass another --port (0 picks a free one)`);
  }
  return new Error(`Cannot bind ${where}: ${typeof message === "string" ? message : String(error)}`);
}
