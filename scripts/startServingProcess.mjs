/**
 * Starts a server process that prints `serving on <url>` once it accepts connections (the Deno
 * and Node entries do), for tests and the benchmark: `startDenoServer`, `startNodeServer`.
 * Whatever becomes of the caller — a start that fails, a test process that exits before its
 * afterAll — the server goes with it rather than lingering on its port. Its console is kept only
 * when asked for (`captureLogs`); before it serves, only a failed start shows it, in its error.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");

/**
 * @param {object} options
 * @param {string[]} options.command  the program and its arguments, run from the repository
 * @param {Record<string, string>} options.env  its whole environment
 * @param {string} options.runtime  what the started server says it runs on ("deno", "node"), and names in errors
 * @param {boolean} [options.captureLogs]  keep the lines it writes once it serves, for `logs()`
 */
export async function startServingProcess({ command, env, runtime, captureLogs = false }) {
  /** The runtime's name in a sentence: "Deno", "Node". */
  const named = runtime[0].toUpperCase() + runtime.slice(1);
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env });
  // Decoded by the streams, so a character split across two chunks is not garbled.
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
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
  /** The lines after `serving on`, when captured; a partial line waits in `pending` for its end. */
  const lines = [];
  let pending = "";
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`${named} did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk) => {
      output += chunk;
      // `listening on` too: the Node benchmark's `before` may be a checkout that printed it.
      const match = /(?:serving|listening) on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => reject(new Error(`${named} exited with ${code} before serving:\n${output}`)));
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
    runtime,
    pid: child.pid,
    logs() {
      if (!captureLogs) throw new Error(`${named} server: pass captureLogs: true to keep the server's lines`);
      return pending ? [...lines, pending] : [...lines];
    },
    /** Kills the process outright (SIGKILL), as a crash or an evicted instance ends one: nothing of it runs after. */
    kill: () => stop("SIGKILL"),
    dispose: () => stop("SIGTERM"),
  };
}
