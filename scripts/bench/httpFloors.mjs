/**
 * `node scripts/bench/httpFloors.mjs`: the 2026-07-28 `tools/call` over HTTP against its two floors,
 * every mode sent the very same request (the headers and `_meta` the revision asks for), so the
 * only difference between the columns is the Worker's work: the server (`/mcp`), the spec floor
 * (`/floor/spec`: the bare echo made to do what the protocol asks of any server) and the bare
 * echo (`/floor/echo`), all in one workerd (`floorWorker.ts`, minified), pinned to CPU 1 with
 * this client on CPU 0. Rounds of the three alternate; the first is a discarded warm-up. CPU per
 * call is workerd's process CPU over a round divided by its calls: sockets and HTTP parsing
 * included, as `npm run bench` counts them.
 * Prints figures, asserts nothing; binds 127.0.0.1 only.
 * Environment: FLOORS_CALLS (default 1,600 per round), FLOORS_ROUNDS (default 8), FLOORS_CONNECTIONS (default 8).
 */
import { execFileSync } from "node:child_process";
import { Agent } from "node:http";
import { startWorkerd } from "../startWorkerd.mjs";
import { postJson } from "./postJson.mjs";
import { workerdCpuNs } from "./workerdProcesses.mjs";

const CALLS = Number(process.env.FLOORS_CALLS ?? 1_600);
const ROUNDS = Number(process.env.FLOORS_ROUNDS ?? 8);
const CONNECTIONS = Number(process.env.FLOORS_CONNECTIONS ?? 8);
const MODES = { "2026-07-28": "/mcp", spec: "/floor/spec", floor: "/floor/echo" };
const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "toUpperCase" };

execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
const server = await startWorkerd({ entry: "scripts/bench/floorWorker.ts", vars: { LOG_LEVEL: "error" }, objects: { FLOOR: "FloorObject" }, cpu: 1 });
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
const perCall = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, []]));
try {
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [mode, path] of Object.entries(MODES)) {
      let id = 0;
      const before = workerdCpuNs();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (id < CALLS) {
            const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "bench" }, _meta: META } });
            const answer = await postJson(agent, `${server.url}${path}`, HEADERS, body);
            if (answer.status !== 200 || !answer.text.includes("BENCH")) throw new Error(`${mode} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
          }
        }),
      );
      if (round > 0) perCall[mode].push((workerdCpuNs() - before) / id / 1_000);
    }
  }
} finally {
  agent.destroy();
  await server.dispose();
}
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const p20 = (mode) => at([...perCall[mode]].sort((a, b) => a - b), 0.2);
console.log(`workerd CPU µs per tools/call over HTTP, ${ROUNDS} rounds of ${CALLS} calls per mode on ${CONNECTIONS} connections`);
console.log(`   ${"mode".padEnd(12)}${"min".padStart(8)}${"p20".padStart(8)}${"median".padStart(8)}   p20 ratio to the floor, to the spec floor`);
for (const mode of Object.keys(MODES)) {
  const sorted = [...perCall[mode]].sort((a, b) => a - b);
  const ratio = mode === "floor" ? "" : `${(p20(mode) / p20("floor")).toFixed(2)}x${mode === "spec" ? "" : `, ${(p20(mode) / p20("spec")).toFixed(2)}x`}`;
  console.log(`   ${mode.padEnd(12)}${sorted[0].toFixed(1).padStart(8)}${at(sorted, 0.2).toFixed(1).padStart(8)}${at(sorted, 0.5).toFixed(1).padStart(8)}   ${ratio}`);
}
process.exit(0);
