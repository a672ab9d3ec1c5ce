/**
 * The size of a Worker as `wrangler deploy` would upload it: wrangler's own bundling (this
 * repository's wrangler.toml: minified, the package built from source) in `--dry-run`, and its own
 * report, `Total Upload: X KiB / gzip: Y KiB`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

/**
 * @param {string} [entry]  a Worker entry relative to the repository; wrangler.toml's `main` when omitted
 * @param {string} [config]  the wrangler config to build with, relative to the repository; wrangler.toml when omitted
 * @returns {Promise<{ kib: number, gzipKib: number, code: string }>} `code`: the script wrangler would upload
 */
export async function deploySize(entry, config) {
  const outdir = await mkdtemp(join(tmpdir(), "durable-mcp-size-"));
  try {
    const args = [wrangler, "deploy", "--dry-run", "--outdir", outdir, ...(config ? ["--config", config] : []), ...(entry ? [entry] : [])];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } });
    const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(stdout);
    if (!match) throw new Error(`wrangler printed no upload size:\n${stdout}`);
    const script = (await readdir(outdir)).find((name) => name.endsWith(".js"));
    if (!script) throw new Error(`wrangler wrote no script to ${outdir}`);
    return { kib: Number(match[1]), gzipKib: Number(match[2]), code: await readFile(join(outdir, script), "utf8") };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}
