// @ts-check
/**
 * Whether `--from` names a packed durable-mcp: a file (the `.tgz` that `npm pack` writes).
 * Returns the sentence that says why not, or undefined.
 */
import { stat } from "node:fs/promises";

/**
 * @param {string} tarball  an absolute path
 * @returns {Promise<string | undefined>}
 */
export async function tarballProblem(tarball) {
  const found = await stat(tarball).catch(() => undefined);
  if (found === undefined) return `--from ${tarball}: no such file. Pack durable-mcp first (npm pack, in its repository) and give the .tgz it writes.`;
  if (!found.isFile()) return `--from ${tarball} is not a file: give the .tgz that npm pack writes.`;
  return undefined;
}
