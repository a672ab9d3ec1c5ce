// @ts-check
/**
 * Whether a project may be written at a directory: only a missing or empty one, so that nothing
 * of the user's is ever overwritten. Returns the sentence that says why not, or undefined.
 */
import { readdir, stat } from "node:fs/promises";

/** How many of a non-empty directory's entries the refusal names. */
const NAMED_ENTRIES = 3;

/**
 * @example await targetProblem("my-server") // undefined: it does not exist yet
 * @param {string} directory  an absolute path
 * @returns {Promise<string | undefined>}
 */
export async function targetProblem(directory) {
  const found = await stat(directory).catch(() => undefined);
  if (found === undefined) return undefined;
  if (!found.isDirectory()) return `${directory} exists and is not a directory: choose another name for the project.`;
  const entries = await readdir(directory);
  if (entries.length === 0) return undefined;
  const named = entries.slice(0, NAMED_ENTRIES).join(", ") + (entries.length > NAMED_ENTRIES ? ", …" : "");
  return `${directory} is not empty (${named}): choose a new directory, or empty this one. Nothing was written.`;
}
