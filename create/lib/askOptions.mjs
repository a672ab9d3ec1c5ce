// @ts-check
/**
 * Completes the command line: asks for what it left out when someone is there to answer (a
 * terminal, no `--yes`), else takes the defaults. The question-asker is passed in, so the bin
 * wires it to readline and a test to a list of answers.
 */
import { DEFAULT_RUNTIMES, parseRuntimes, RUNTIMES } from "./runtimes.mjs";

/** The directory when none is given. */
export const DEFAULT_DIRECTORY = "my-mcp-server";

/** How often an answer that cannot be used is asked again before giving up. */
const MAX_TRIES = 3;

/**
 * @typedef {object} ProjectOptions
 * @property {string} directory
 * @property {import("./runtimes.mjs").Runtime[]} runtimes
 * @property {string} [from]
 */

/**
 * @example await askOptions({ yes: true, help: false }) // { directory: "my-mcp-server", runtimes: ["workers", "node", "stdio"] }
 * @param {import("./parseOptions.mjs").CommandLine} given
 * @param {((question: string) => Promise<string>) | undefined} ask  undefined: ask nothing
 * @returns {Promise<{ ok: true, options: ProjectOptions } | { ok: false, message: string }>}
 */
export async function askOptions(given, ask) {
  /** @type {ProjectOptions} */
  const options = { directory: given.directory ?? DEFAULT_DIRECTORY, runtimes: given.runtimes ?? [...DEFAULT_RUNTIMES] };
  if (given.from !== undefined) options.from = given.from;
  if (given.yes || ask === undefined) return { ok: true, options };
  if (given.directory === undefined) options.directory = (await ask(`Project directory (${DEFAULT_DIRECTORY}): `)).trim() || DEFAULT_DIRECTORY;
  if (given.runtimes !== undefined) return { ok: true, options };
  const question = `Runtimes, any of ${RUNTIMES.join(", ")} (${DEFAULT_RUNTIMES.join(",")}): `;
  let refusal = "";
  for (let tries = 1; ; tries++) {
    const answer = (await ask(refusal + question)).trim();
    if (answer === "") return { ok: true, options };
    const read = parseRuntimes(answer);
    if (read.ok) return { ok: true, options: { ...options, runtimes: read.runtimes } };
    if (tries >= MAX_TRIES) return read;
    refusal = `${read.message}\n`;
  }
}
