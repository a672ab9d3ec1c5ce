/**
 * Test helper: the keys a Deno KV database file holds under a prefix, read by a separate Deno
 * process (the one `npm ci` installs), so a Node test can see what the Deno server stored.
 * Deno KV is SQLite underneath: the file may be read while a server has it open.
 *
 * Not here: values (keys are enough to show what exists), or writing.
 *
 * @example
 * const keys = await denoKvKeys(join(dir, "sessions.kv"), ["session", sessionId]);
 * expect(keys).toEqual([]);
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** How long reading the keys may take before the helper gives up, in ms (Deno's start included). */
const READ_TIMEOUT_MS = 30_000;

const deno = join(dirname(createRequire(import.meta.url).resolve("deno/package.json")), process.platform === "win32" ? "deno.exe" : "deno");

const LIST_KEYS = `
const kv = await Deno.openKv(Deno.args[0]);
const keys = [];
for await (const entry of kv.list({ prefix: JSON.parse(Deno.args[1]) })) keys.push(entry.key);
kv.close();
console.log(JSON.stringify(keys));
`;

export type KvKey = (string | number)[];

/** Every key of the database at `path` that starts with `prefix`, in KV order. */
export function denoKvKeys(path: string, prefix: KvKey): Promise<KvKey[]> {
  return new Promise((resolve, reject) => {
    execFile(
      deno,
      ["eval", "--quiet", "--unstable-kv", LIST_KEYS, path, JSON.stringify(prefix)],
      { timeout: READ_TIMEOUT_MS, env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } },
      (error, stdout, stderr) => (error ? reject(new Error(`Reading the keys of ${path} failed: ${stderr || error.message}`)) : resolve(JSON.parse(stdout) as KvKey[])),
    );
  });
}
