// @ts-check
/**
 * The command line, read into options: a directory (positional), `--runtimes`, `--from`, `--yes`,
 * `--help`. A mistake is a value with the sentence to print, not an exception: the bin prints it
 * and exits 1, with no stack trace. Nothing is asked or checked on disk here (askOptions,
 * targetProblem).
 */
import { parseArgs } from "node:util";
import { parseRuntimes } from "./runtimes.mjs";

/**
 * @typedef {object} CommandLine
 * @property {string} [directory]  where the project goes; its last segment names it
 * @property {import("./runtimes.mjs").Runtime[]} [runtimes]
 * @property {string} [from]  a packed durable-mcp (`npm pack`) for the project to depend on
 * @property {boolean} yes  ask nothing: defaults for whatever is not given
 * @property {boolean} help
 */

/**
 * @example parseOptions(["my-server", "--runtimes", "workers,node", "--yes"])
 * // { ok: true, options: { directory: "my-server", runtimes: ["workers", "node"], yes: true, help: false } }
 * @param {string[]} args  the arguments after the command's name
 * @returns {{ ok: true, options: CommandLine } | { ok: false, message: string }}
 */
export function parseOptions(args) {
  /** @type {ReturnType<typeof parse>} */
  let parsed;
  try {
    parsed = parse(args);
  } catch (error) {
    // parseArgs' own sentences name the flag ("Unknown option '--x'"); its hints speak of code, not of a command line.
    return { ok: false, message: String(error instanceof Error ? error.message : error).replace(/\. To specify .*$/s, ".") };
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) return { ok: false, message: `One project directory at a time; got ${positionals.map((p) => JSON.stringify(p)).join(", ")}.` };
  /** @type {CommandLine} */
  const options = { yes: values.yes ?? false, help: values.help ?? false };
  if (positionals[0] !== undefined) options.directory = positionals[0];
  if (values.runtimes !== undefined) {
    const read = parseRuntimes(values.runtimes);
    if (!read.ok) return read;
    options.runtimes = read.runtimes;
  }
  if (values.from !== undefined) {
    if (values.from.trim() === "") return { ok: false, message: "--from needs the path of a packed durable-mcp (the .tgz file npm pack writes)." };
    options.from = values.from;
  }
  return { ok: true, options };
}

/** @param {string[]} args */
function parse(args) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      runtimes: { type: "string", short: "r" },
      from: { type: "string" },
      yes: { type: "boolean", short: "y" },
      help: { type: "boolean", short: "h" },
    },
  });
}
