// @ts-check
/**
 * The runtimes a new project can serve from, and reading a list of them (`--runtimes a,b`).
 * Deno is not among the defaults: the `deno` package brings a binary of about 90 MB, worth it only
 * to those who run Deno.
 */

/** @typedef {"workers" | "deno" | "node" | "stdio"} Runtime */

/** @type {readonly Runtime[]} Every runtime, in the order entries, scripts and docs list them. */
export const RUNTIMES = Object.freeze(/** @type {const} */ (["workers", "deno", "node", "stdio"]));

/** @type {readonly Runtime[]} What `--yes` (and an empty answer) picks. */
export const DEFAULT_RUNTIMES = Object.freeze(/** @type {const} */ (["workers", "node", "stdio"]));

/**
 * Reads a comma-separated list of runtimes, in any order and case, into `RUNTIMES` order.
 * @example parseRuntimes("node, workers") // { ok: true, runtimes: ["workers", "node"] }
 * @param {string} text
 * @returns {{ ok: true, runtimes: Runtime[] } | { ok: false, message: string }}
 */
export function parseRuntimes(text) {
  const names = text.split(",").map((name) => name.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((name) => !RUNTIMES.includes(/** @type {Runtime} */ (name)));
  if (unknown.length > 0) return { ok: false, message: `Unknown runtime ${unknown.map((name) => JSON.stringify(name)).join(", ")}: choose from ${RUNTIMES.join(", ")}.` };
  if (names.length === 0) return { ok: false, message: `No runtime given: choose one or more of ${RUNTIMES.join(", ")}, separated by commas.` };
  return { ok: true, runtimes: RUNTIMES.filter((runtime) => names.includes(runtime)) };
}
