/**
 * `npm run bench:calls`: the platform calls one `tools/call` makes in each era, and its floor's
 * (`countingWorker.ts`): header reads, request and response accessors, timers, abort controllers,
 * listeners, URLs, responses. Unlike CPU time these are exact and the same from run to run, so a
 * change to the hot path can be judged by them when `npm run bench`'s ratios (±0.3 on this
 * machine) cannot resolve it. Counted as the difference between two runs of different lengths,
 * so that opening sessions is not in the figures; the bench Worker's own routing (a `URL` and
 * `request.url`, twice, on every request) is in both columns. Prints figures, asserts
 * nothing; binds 127.0.0.1 only.
 */
import { closeConnections, MODE_NAMES, runMode } from "./hotPath.mjs";
import { startWorkerd } from "../startWorkerd.mjs";

const SHORT = 200;
const LONG = 1_200;
/** The calls `runMode` makes for `calls`: a warm-up of up to 1,000, then the run. */
const made = (calls) => calls + Math.min(calls, 1_000);

const server = await startWorkerd({ entry: "scripts/bench/countingWorker.ts", vars: { LOG_LEVEL: "error" }, objects: { FLOOR: "FloorObject" } });
const counts = async () => (await fetch(`${server.url}/floor/counts`)).json();
try {
  for (const mode of MODE_NAMES) {
    const perCall = {};
    for (const floor of [false, true]) {
      await counts();
      await runMode(server.url, mode, { sessions: 1, calls: SHORT, floor });
      const short = await counts();
      await runMode(server.url, mode, { sessions: 1, calls: LONG, floor });
      const long = await counts();
      for (const name of new Set([...Object.keys(short), ...Object.keys(long)])) {
        const n = ((long[name] ?? 0) - (short[name] ?? 0)) / (made(LONG) - made(SHORT));
        if (Math.abs(n) >= 0.01) (perCall[name] ??= [0, 0])[floor ? 1 : 0] = n;
      }
    }
    const rows = Object.entries(perCall).sort(([a], [b]) => a.localeCompare(b));
    const total = (side) => rows.reduce((sum, [, pair]) => sum + pair[side], 0);
    console.log(`\n${mode}: platform calls per tools/call (server, floor)`);
    for (const [name, [mine, theirs]] of rows) console.log(`   ${name.padEnd(24)}${mine.toFixed(2).padStart(8)}${theirs.toFixed(2).padStart(8)}`);
    console.log(`   ${"total".padEnd(24)}${total(0).toFixed(2).padStart(8)}${total(1).toFixed(2).padStart(8)}`);
  }
} finally {
  closeConnections();
  await server.dispose();
}
process.exit(0);
