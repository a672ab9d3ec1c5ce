/**
 * wrangler.toml as wrangler itself reads it (`unstable_readConfig`), for the scripts that start
 * servers: one source of truth for variables and Durable Object bindings.
 *
 * Note for those scripts: importing wrangler installs SIGINT and SIGTERM handlers that call
 * `process.exit` at once (and miniflare adds its own when it starts), so a script's own signal
 * handler may never finish. Whatever a started server must undo — stop workerd, remove its
 * temporary bundle — is therefore also done on the process's `exit` event, synchronously
 * (`startServer`, `startWorkerd`).
 *
 * @example const { vars, durable_objects } = wranglerConfig();
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");

/** @param {string} [path] a wrangler config relative to the repository (default: `wrangler.toml`) */
export function wranglerConfig(path = "wrangler.toml") {
  return unstable_readConfig({ config: join(ROOT, path) });
}
