/**
 * Deno's default for a promise rejection nothing handled is to print it and exit 1. A server must
 * not die, and end every session it hosts, because one request's promise was left unhandled:
 * here such a rejection is logged as an error line (`internal.unhandled-rejection`; message and
 * stack cut by `Logger` like every field) and the process goes on. Every such line is a bug.
 */
import type { Logger } from "../shared/log/Logger.ts";

/** Whether this process already logs unhandled rejections: one listener, so each is logged once. */
let loggingUnhandledRejections = false;

/**
 * Registers the one listener of this process (see the module header); the first logger given
 * is the one used.
 *
 * @example logUnhandledRejections(new Logger("info"));
 */
export function logUnhandledRejections(logger: Logger): void {
  if (loggingUnhandledRejections) return;
  loggingUnhandledRejections = true;
  globalThis.addEventListener("unhandledrejection", (event) => {
    const reason: unknown = event.reason;
    logger.error("internal.unhandled-rejection", { message: reason instanceof Error ? reason.message : String(reason), stack: reason instanceof Error ? reason.stack : undefined });
    event.preventDefault();
  });
}
