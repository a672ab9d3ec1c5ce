/**
 * `npm run start:node [-- --port N] [--store postgres://…]`: serves the example server on Node at
 * http://127.0.0.1:N (default 8787). Node 20 runs no TypeScript, so the entry is bundled first, as
 * the contract tests bundle it (`bundleNodeEntry`); every other argument goes to the server
 * (`--store URL`, `--hostname H`). Without `--store` or `DATABASE_URL`, state is in memory and
 * lost on restart, as the server says when it starts.
 */
import { spawn } from "node:child_process";
import { bundleNodeEntry } from "./startNodeServer.mjs";
import { parsePort } from "./parsePort.mjs";

const DEFAULT_PORT = 8787;
const { port, rest } = parsePort(process.argv.slice(2), DEFAULT_PORT);

const bundled = await bundleNodeEntry({});
const child = spawn(process.execPath, [bundled.outfile, "--port", String(port), ...rest], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  bundled.remove();
  process.exit(code ?? (signal ? 1 : 0));
});
