/**
 * `npm start [-- --port N] [ENTRY]`: serves the example server (or the Worker entry ENTRY) on
 * http://127.0.0.1:N (default 8787) with `wrangler dev`, i.e. on workerd with live reload. Any
 * other arguments go to wrangler.
 * Binds to loopback only; use `wrangler dev --ip 0.0.0.0` yourself to expose it.
 *
 * Requests must be addressed to a loopback name (ALLOWED_HOSTS below), which refuses DNS-rebinding
 * pages even on GETs that carry no Origin. A later `--var ALLOWED_HOSTS:…` of yours replaces it.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { parsePort } from "./parsePort.mjs";

const DEFAULT_PORT = 8787;
const { port, rest } = parsePort(process.argv.slice(2), DEFAULT_PORT);

const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const LOOPBACK_HOSTS = "ALLOWED_HOSTS:localhost,127.0.0.1,[::1]";
// `--var` takes a list, so it goes before the other flags: last, it would swallow a Worker entry
// given as the positional argument (`npm start -- --port N my-worker.ts`).
const args = [wrangler, "dev", "--var", LOOPBACK_HOSTS, "--ip", "127.0.0.1", "--port", String(port), ...rest];
const child = spawn(process.execPath, args, {
  stdio: "inherit",
  env: { WRANGLER_SEND_METRICS: "false", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
