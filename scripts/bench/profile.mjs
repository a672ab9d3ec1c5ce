/**
 * `node --experimental-websocket scripts/bench/profile.mjs [mode] [--sessions N] [--floor] [--in-isolate]`:
 * where the server's CPU goes on the hot path. Runs the bench's Worker (`floorWorker.ts`,
 * unminified so functions keep their names) on bare workerd with its inspector open, drives one
 * mode of `hotPath.mjs`, and records a V8 CPU profile of the isolate over the measured run (Chrome
 * DevTools protocol, `Profiler.*`). Prints the functions with the most self time, the source
 * modules with the most (where no one function stands out, the module says which layer costs),
 * and the functions with the most total time.
 * `--in-isolate` profiles `inIsolateWorker.ts` instead: the requests are built and answered inside
 * the isolate, so no socket or HTTP parsing waits in the profile and the platform's own functions
 * (`Response`, `arrayBuffer`, `URL`) show as themselves; its modes are 2026-07-28, sessionless, floor.
 * Prints figures, asserts nothing; modes: 2026-07-28, "Streamable HTTP", "legacy HTTP+SSE";
 * `--sessions N` (default 8), `--floor` for the floor's profile.
 * Environment: PROFILE_CALLS (default 4,000 measured calls), PROFILE_TOP (default 30 functions per list),
 * PROFILE_SAVE (a path: the raw profile is written there too, for DevTools or a closer look).
 */
import { openInspector } from "./inspector.mjs";
import { execFileSync } from "node:child_process";
import { closeConnections, runMode } from "./hotPath.mjs";
import { startWorkerd } from "../startWorkerd.mjs";
import { bundleWorker } from "../bundleWorker.mjs";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const mode = process.argv[2] ?? "2026-07-28";
const floor = process.argv.includes("--floor");
const at = process.argv.indexOf("--sessions");
const SESSIONS = at >= 0 ? Number(process.argv[at + 1]) : 8;
const CALLS = Number(process.env.PROFILE_CALLS ?? 4_000);
/** Functions each list shows (PROFILE_TOP). */
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const INSPECTOR_PORT = 9_329;
const inIsolate = process.argv.includes("--in-isolate");

// The client on one CPU, workerd on the other: neither takes the other's time.
execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });

const ENTRY = inIsolate ? "scripts/bench/inIsolateWorker.ts" : "scripts/bench/floorWorker.ts";
const modules = await moduleLines(ENTRY);
const server = await startWorkerd({ entry: ENTRY, vars: { LOG_LEVEL: "error" }, objects: { FLOOR: "FloorObject" }, minify: false, inspectorPort: INSPECTOR_PORT, cpu: 1 });
try {
  const inspector = await openInspector(INSPECTOR_PORT);
  const { send } = inspector;
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 50 });
  // A warm-up run of the same shape, unprofiled, so the JIT's work is not in the figures.
  const drive = inIsolate ? (calls) => isolateRun(server.url, calls) : (calls) => runMode(server.url, mode, { sessions: SESSIONS, calls, floor });
  await drive(1_000);
  await send("Profiler.start");
  const run = await drive(CALLS);
  const { profile } = await send("Profiler.stop");
  if (process.env.PROFILE_SAVE) writeFileSync(process.env.PROFILE_SAVE, JSON.stringify(profile));
  inspector.close();
  report(profile, run);
} finally {
  closeConnections();
  await server.dispose();
}
process.exit(0);

/** One request to `inIsolateWorker.ts`, which makes `calls` calls of `mode` inside the isolate. */
async function isolateRun(base, calls) {
  const started = performance.now();
  const answered = Number(await (await fetch(`${base}/in-isolate?mode=${mode}&n=${calls}`)).text());
  if (answered !== calls) throw new Error(`${mode}: ${answered} of ${calls} calls answered with the tool's result`);
  return { perSecond: (calls * 1_000) / (performance.now() - started) };
}

function report(profile, run) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const sampleMs = new Map();
  for (let i = 0; i < profile.samples.length; i++) sampleMs.set(profile.samples[i], (sampleMs.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i] / 1000);
  const self = new Map();
  const total = new Map();
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const name = (n) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
  const moduleOf = (n) => (n.callFrame.url ? modules(n.callFrame.lineNumber + 1) : name(n));
  const byModule = new Map();
  let all = 0;
  for (const [id, ms] of sampleMs) {
    all += ms;
    const node = byId.get(id);
    self.set(name(node), (self.get(name(node)) ?? 0) + ms);
    byModule.set(moduleOf(node), (byModule.get(moduleOf(node)) ?? 0) + ms);
    // Total time: once per distinct function on the stack.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const key = name(byId.get(at));
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + ms);
    }
  }
  const idle = ["(idle)", "(program)", "(garbage collector)"].reduce((sum, n) => sum + [...self].filter(([k]) => k.startsWith(n)).reduce((s, [, v]) => s + v, 0), 0);
  const cpu = run.cpuMsPerCall === undefined ? "in the isolate" : `${run.cpuMsPerCall.toFixed(3)} ms CPU per call (whole process)`;
  console.log(`${floor ? "floor of " : ""}${mode}: ${CALLS} calls, ${run.perSecond.toFixed(0)} calls/s, ${cpu}`);
  console.log(`isolate samples: ${all.toFixed(0)} ms, of which idle/program/GC ${idle.toFixed(0)} ms; µs per call below\n`);
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${((v * 1000) / CALLS).toFixed(1).padStart(7)}  ${k}`).join("\n");
  console.log(`self time:\n${top(self, TOP)}\n\nself time by source module:\n${top(byModule, TOP)}\n\ntotal time:\n${top(total, TOP)}`);
}

/**
 * The source module of each line of the bundle workerd runs (the same unminified build, made
 * again here): esbuild starts each module's code with a `// path` comment. Platform functions
 * (no URL) keep their own names.
 */
async function moduleLines(entry) {
  const dir = mkdtempSync(join(tmpdir(), "durable-mcp-profile-"));
  try {
    await bundleWorker(join(process.cwd(), entry), join(dir, "worker.mjs"), { minify: false });
    const starts = [];
    readFileSync(join(dir, "worker.mjs"), "utf8").split("\n").forEach((line, i) => {
      const path = /^\/\/ ((?:\.\.\/)*[\w@./-]+\.[cm]?[jt]s)$/.exec(line)?.[1];
      if (path) starts.push([i + 1, path.replace(/^(\.\.\/)+/, "")]);
    });
    return (line) => {
      let found = "(bundle)";
      for (const [start, path] of starts) if (start <= line) found = path; else break;
      return found;
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
