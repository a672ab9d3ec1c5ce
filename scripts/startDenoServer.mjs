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
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { startServingProcess } from "./startServingProcess.mjs";
import { wranglerConfig } from "./wranglerConfig.mjs";

const denoPackage = dirname(createRequire(import.meta.url).resolve("deno/package.json"));
// The binary itself, not the package's `bin.cjs`: that wrapper runs it with spawnSync, so killing
// the wrapper would leave the server running. (`npm ci` installs the binary beside bin.cjs.)
const deno = join(denoPackage, process.platform === "win32" ? "deno.exe" : "deno");
/** The Deno binary, for a test that runs a Deno script of its own. */
export const denoBinary = deno;

/** The flags `npm run start:deno` uses: loopback serving, outbound fetches for tools, env, KV files. */
export const DENO_FLAGS = ["run", "--quiet", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--unstable-kv"];

/**
 * @param {object} options
 * @param {string} [options.definition]  Module whose default export is the server, served by `test/support/denoServer.ts`.
 * @param {string} [options.main]  A Deno entry of its own (it takes `--port` and prints `serving on`; default: the example's).
 * @param {number} [options.port]  0 (default) picks a free port.
 * @param {Record<string, string>} [options.vars]
 * @param {string} [options.kvPath]  Keep sessions in Deno KV at this path.
 * @param {number} [options.cpu]  pins the server to this CPU (`taskset`), as the benchmark does
 * @param {boolean} [options.captureLogs]  Keep the lines the server writes once it serves (its console; stderr and
 *   stdout alike) for `logs()`. Either way they are not printed: before, only a failed start shows them, in its error.
 * @param {Record<string, string>} [options.outbound]  Route the server's fetches to these origins to loopback ones
 *   (`denoOutbound.ts`); every other fetch is then refused.
 */
export async function startDenoServer({ definition, main, port = 0, vars = {}, kvPath, cpu, captureLogs = false, outbound } = {}) {
  const config = wranglerConfig();
  const entry = definition ? ["test/support/denoServer.ts", "--server", definition] : [main ?? "example/deno.ts"];
  const preload = outbound ? ["--preload", "scripts/denoOutbound.ts"] : [];
  const args = [deno, ...DENO_FLAGS, ...preload, ...entry, "--port", String(port)];
  if (kvPath) args.push("--kv", kvPath);
  if (cpu !== undefined) args.unshift("taskset", "-c", String(cpu));
  const routes = outbound ? { DURABLE_MCP_OUTBOUND: JSON.stringify(outbound) } : {};
  return startServingProcess({ command: args, env: { ...process.env, ...config.vars, ...vars, ...routes, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" }, runtime: "deno", captureLogs });
}
