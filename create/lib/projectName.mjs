// @ts-check
/**
 * A new project's name, from its directory: the package's name in package.json, the Worker's in
 * wrangler.toml, the server's in its definition. Lower-case letters, digits and dashes, at most
 * 63 characters, which both npm and Workers accept.
 */
import { basename, resolve } from "node:path";

/** Workers' limit on a script's name. */
const MAX_NAME_LENGTH = 63;

/**
 * @example projectName("./My Server") // "my-server"
 * @param {string} directory
 * @returns {string}
 */
export function projectName(directory) {
  const name = basename(resolve(directory))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_NAME_LENGTH)
    .replace(/^-+|-+$/g, "");
  return name || "mcp-server";
}
