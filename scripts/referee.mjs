/**
 * The official MCP conformance referee, `@modelcontextprotocol/conformance` (pinned in
 * package.json), as a child process. It needs Node 22 APIs, so it runs under Deno from the `deno`
 * npm package, allowed to reach loopback only and to write nothing.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const referee = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");
const deno = join(dirname(require.resolve("deno/package.json")), "bin.cjs");

/**
 * Runs `conformance <args…>`; resolves with its exit code and everything it printed. `onLine` sees
 * each line of its output as it comes (the authorization lane reads the URL it asks a person to
 * open from there); `echo` copies the output to this process's stdout.
 * @param {string[]} args
 * @param {{ onLine?: (line: string) => void, echo?: boolean }} [options]
 * @returns {Promise<{ code: number | null, output: string }>}
 */
export function runReferee(args, { onLine, echo = true } = {}) {
  const argv = [deno, "run", "--allow-net=127.0.0.1,localhost", "--allow-read", "--allow-env", referee, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } });
    let output = "";
    let partial = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (echo) process.stdout.write(chunk);
      if (!onLine) return;
      const lines = (partial + chunk).split("\n");
      partial = lines.pop();
      for (const line of lines) onLine(line);
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}
