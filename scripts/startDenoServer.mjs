/**
 * Starts a server on Deno (a Deno entry, through the `deno` npm package) the way the
 * contract tests do, returning the same shape as `startServer` so one test file drives either
 * runtime. Variables come from wrangler.toml `[vars]` plus overrides, as on workerd.
 *
 * @example
 * const server = await startDenoServer({ main: "example/deno.ts", vars: { LOG_LEVEL: "error" } });
 * await fetch(`${server.url}/health`);
 * await server.dispose();
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { wranglerConfig } from "./wranglerConfig.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const denoPackage = dirname(createRequire(import.meta.url).resolve("deno/package.json"));
// The binary itself, not the package's `bin.cjs`: that wrapper runs it with spawnSync, so killing
// the wrapper would leave the server running. (`npm ci` installs the binary beside bin.cjs.)
const deno = join(denoPackage, process.platform === "win32" ? "deno.exe" : "deno");

/** The flags `npm run start:deno` uses: loopback serving, outbound fetches for tools, env, KV files. */
export const DENO_FLAGS = ["run", "--quiet", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--unstable-kv"];

/**
 * @param {object} options
 * @param {string} [options.definition]  Module whose default export is the server, served by `test/support/denoServer.ts`.
 * @param {string} [options.main]  A Deno entry of its own (it takes `--port` and prints `listening on`; default: the example's).
 * @param {number} [options.port]  0 (default) picks a free port.
 * @param {Record<string, string>} [options.vars]
 * @param {string} [options.kvPath]  Keep sessions in Deno KV at this path.
 * @param {number} [options.cpu]  pins the server to this CPU (`taskset`), as the benchmark does
 * @param {boolean} [options.captureLogs]  Keep the lines the server writes after it listens (its console; stderr and
 *   stdout alike) for `logs()`. Either way they are not printed: before, only a failed start shows them, in its error.
 */
export async function startDenoServer({ definition, main, port = 0, vars = {}, kvPath, cpu, captureLogs = false } = {}) {
  const config = wranglerConfig();
  const entry = definition ? ["test/support/denoServer.ts", "--server", definition] : [main ?? "example/deno.ts"];
  const args = [deno, ...DENO_FLAGS, ...entry, "--port", String(port)];
  if (kvPath) args.push("--kv", kvPath);
  if (cpu !== undefined) args.unshift("taskset", "-c", String(cpu));
  const child = spawn(args[0], args.slice(1), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...config.vars, ...vars, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
  });
  // Decoded by the streams, so a character split across two chunks is not garbled.
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  // Whatever becomes of the caller — a start that fails, a test process that exits before its
  // afterAll — the server goes with it rather than lingering on its port.
  const orphaned = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  process.once("exit", orphaned);
  /** Sends `signal` and waits for the process to exit. */
  const stop = async (signal) => {
    process.removeListener("exit", orphaned);
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
  };
  let output = "";
  /** The lines after `listening on`, when captured; a partial line waits in `pending` for its end. */
  const lines = [];
  let pending = "";
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`Deno did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => reject(new Error(`Deno exited with ${code} before listening:\n${output}`)));
  }).catch((error) => {
    orphaned();
    process.removeListener("exit", orphaned);
    throw error;
  });
  // From here on, the start's buffer is no longer read: keep lines only for a test that asks for them.
  child.stdout.removeAllListeners("data");
  child.stderr.removeAllListeners("data");
  const keep = (chunk) => {
    const parts = (pending + chunk).split("\n");
    pending = parts.pop();
    lines.push(...parts);
  };
  if (captureLogs) {
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
  } else {
    // Read and dropped, so a chatty server never stalls on a full pipe.
    child.stdout.resume();
    child.stderr.resume();
  }
  return {
    url,
    port: Number(new URL(url).port),
    runtime: "deno",
    pid: child.pid,
    logs() {
      if (!captureLogs) throw new Error("startDenoServer: pass captureLogs: true to keep the server's lines");
      return pending ? [...lines, pending] : [...lines];
    },
    /** Kills the process outright (SIGKILL), as a crash or an evicted instance ends one: nothing of it runs after. */
    kill: () => stop("SIGKILL"),
    dispose: () => stop("SIGTERM"),
  };
}
