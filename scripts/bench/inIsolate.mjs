/**
 * `node scripts/bench/inIsolate.mjs`: the CPU one stateless `tools/call` costs inside the isolate,
 * against the floor's, with no network in between (`inIsolateWorker.ts` builds the requests and
 * calls the Worker's `fetch` itself). `npm run bench` measures the whole process, sockets and
 * HTTP parsing included, which both sides share and which a shared machine makes noisy; this
 * leaves only the Worker's own work, so a change of a few microseconds on the path shows.
 *
 * Beside the bare floor, the spec floor (`spec`): the floor made to do what the protocol asks of
 * any server (`specFloor` in `inIsolateWorker.ts`), so the server's cost splits into what the
 * protocol asks and what the server's own layers add.
 * Rounds of each mode alternate in one workerd (pinned to CPU 1, this process on CPU 0); the
 * first rounds are a discarded warm-up. A busy machine only ever adds time, so the minimum and
 * the 20th percentile over rounds are the figures to compare; the median shows the spread.
 * Prints figures, asserts nothing; binds 127.0.0.1 only.
 * Environment: ISOLATE_CALLS (default 2,000 per round), ISOLATE_ROUNDS (default 20), ISOLATE_MODES
 * (default `2026-07-28,sessionless`; `spec` and `floor` are always measured).
 */
import { execFileSync } from "node:child_process";
import { startWorkerd } from "../startWorkerd.mjs";
import { workerdCpuNs } from "./workerdProcesses.mjs";

const CALLS = Number(process.env.ISOLATE_CALLS ?? 2_000);
const ROUNDS = Number(process.env.ISOLATE_ROUNDS ?? 20);
/** Rounds run before any is counted, so the JIT's warm-up is not billed to a mode. */
const WARM_UP_ROUNDS = 2;
const MODES = [...new Set([...(process.env.ISOLATE_MODES?.split(",") ?? ["2026-07-28", "sessionless"]), "spec", "floor"])];

execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
const server = await startWorkerd({ entry: "scripts/bench/inIsolateWorker.ts", vars: { LOG_LEVEL: "error" }, objects: { FLOOR: "FloorObject" }, cpu: 1 });
const perCall = Object.fromEntries(MODES.map((mode) => [mode, []]));
try {
  for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
    for (const mode of MODES) {
      const before = workerdCpuNs();
      const answered = Number(await (await fetch(`${server.url}/in-isolate?mode=${mode}&n=${CALLS}`)).text());
      if (answered !== CALLS) throw new Error(`${mode}: ${answered} of ${CALLS} calls answered with the tool's result`);
      if (round >= WARM_UP_ROUNDS) perCall[mode].push((workerdCpuNs() - before) / CALLS / 1_000);
    }
  }
} finally {
  await server.dispose();
}
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const floor = [...perCall.floor].sort((a, b) => a - b);
const spec = [...perCall.spec].sort((a, b) => a - b);
console.log(`CPU µs per tools/call inside the isolate, ${ROUNDS} rounds of ${CALLS} calls per mode (workerd on CPU 1)`);
console.log(`   ${"mode".padEnd(14)}${"min".padStart(8)}${"p20".padStart(8)}${"median".padStart(8)}   p20 ratio to the floor, to the spec floor`);
for (const mode of MODES) {
  const sorted = [...perCall[mode]].sort((a, b) => a - b);
  const ratio = mode === "floor" ? "" : `${(at(sorted, 0.2) / at(floor, 0.2)).toFixed(2)}x${mode === "spec" ? "" : `, ${(at(sorted, 0.2) / at(spec, 0.2)).toFixed(2)}x`}`;
  console.log(`   ${mode.padEnd(14)}${sorted[0].toFixed(1).padStart(8)}${at(sorted, 0.2).toFixed(1).padStart(8)}${at(sorted, 0.5).toFixed(1).padStart(8)}   ${ratio}`);
}
console.log("   each request is built in the isolate (the same headers in every mode): its cost is in every row, the floor's included");
process.exit(0);
