/**
 * `npm start [-- --port N]`: serves the example server on http://127.0.0.1:N (default 8787)
 * with `wrangler dev`, i.e. on workerd with live reload. Any other arguments go to wrangler.
 * Binds to loopback only; use `wrangler dev --ip 0.0.0.0` yourself to expose it.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { parsePort } from "./parsePort.mjs";

const DEFAULT_PORT = 8787;
const { port, rest } = parsePort(process.argv.slice(2), DEFAULT_PORT);

const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const child = spawn(process.execPath, [wrangler, "dev", "--ip", "127.0.0.1", "--port", String(port), ...rest], {
  stdio: "inherit",
  env: { WRANGLER_SEND_METRICS: "false", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
