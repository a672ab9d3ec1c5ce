/**
 * `npm run bench`: prints figures, asserts nothing (tests assert behaviour). Each figure comes with
 * a baseline measured in the same run on the same machine:
 *
 * 1. Backpressure memory. A legacy client opens /sse, reads the endpoint event, then stops
 *    reading. It POSTs REQUESTS toUpperCase calls of REPLY_KIB KiB each (far more than the queue
 *    holds), then reads again. Run once with the default caps (4 MiB / 1,000 messages) and once
 *    with caps so large they never bind (the baseline: what an unbounded queue would hold).
 *    Prints workerd's RSS before, at the peak and after, the statuses seen, and whether every
 *    accepted request was answered.
 * 2. The hot path against floors (`bench/hotPath.mjs`, `bench/floorWorker.ts`): the same
 *    `tools/call` on 2026-07-28, on a Streamable HTTP session and on a legacy HTTP+SSE session,
 *    at 8 and 32 sessions, on bare workerd; calls/s and server CPU per call, as ratios to the
 *    least work that carries the same exchange.
 * 3. The same calls on the Deno server, as ratios against workerd's figures of this run.
 *
 * Bounded in count and time; binds 127.0.0.1 only.
 */
import { execFileSync } from "node:child_process";
import { startDenoServer } from "./startDenoServer.mjs";
import { closeConnections, hotPath, printHotPath } from "./bench/hotPath.mjs";
import { openLegacyStream } from "./bench/legacyStream.mjs";
import { workerdRssMiB } from "./bench/workerdProcesses.mjs";
import { startServer } from "./startServer.mjs";
import { startWorkerd } from "./startWorkerd.mjs";

/** Override with BENCH_REQUESTS=N to check that memory plateaus rather than grows with N. */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3_000);
const REPLY_KIB = 64;
/** Calls per measured run of the hot path (each after a warm-up run). */
const CALLS = Number(process.env.BENCH_CALLS ?? 8_000);
const SESSIONS = [8, 32];

async function backpressure(label, vars) {
  const server = await startServer({ vars: { LOG_LEVEL: "error", ...vars } });
  const rssBefore = workerdRssMiB();
  const stream = await openLegacyStream(server.port);
  stream.pause();
  // The session's own figures, read over RPC from the Durable Object itself.
  const namespace = await server.mf.getDurableObjectNamespace("MCP_SESSION");
  const sessionId = new URL(stream.endpoint, server.url).searchParams.get("sessionId");
  const session = namespace.get(namespace.idFromName(sessionId));
  const queuePeak = { bytes: 0, messages: 0 };
  const sampleQueue = async () => {
    const stats = await session.stats();
    queuePeak.bytes = Math.max(queuePeak.bytes, stats.bytes);
    queuePeak.messages = Math.max(queuePeak.messages, stats.messages + stats.reserved);
  };
  const input = "a".repeat(REPLY_KIB * 1024);
  const statuses = {};
  const accepted = new Set();
  let peak = rssBefore;
  for (let id = 1; id <= REQUESTS; id++) {
    const response = await fetch(new URL(stream.endpoint, server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input } } }),
    });
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    if (response.status === 202) accepted.add(id);
    if (id % 100 === 0) {
      peak = Math.max(peak, workerdRssMiB());
      await sampleQueue();
    }
  }
  peak = Math.max(peak, workerdRssMiB());
  await sampleQueue();
  stream.resume();
  const answered = () => stream.messages.filter((m) => accepted.has(m.id)).length;
  await stream.until(() => answered() >= accepted.size, 120_000);
  const rssAfter = workerdRssMiB();
  const duplicates = stream.messages.length - new Set(stream.messages.map((m) => m.id)).size;
  stream.close();
  await server.dispose();
  return { label, rssBefore, peak, rssAfter, queuePeak, statuses, accepted: accepted.size, answered: answered(), duplicates };
}

const mib = (n) => `${n.toFixed(1)} MiB`;
console.log(`durable-mcp benchmark — node ${process.version}, ${new Date().toISOString()}`);
console.log(`\n1. Non-reading client, ${REQUESTS} × ${REPLY_KIB} KiB replies (${((REQUESTS * REPLY_KIB) / 1024).toFixed(0)} MiB offered)`);
const bounded = await backpressure("default caps (4 MiB, 1,000 msgs)", {});
if (process.env.BENCH_BOUNDED_ONLY) {
  console.log(JSON.stringify(bounded));
  process.exit(0);
}
const unbounded = await backpressure("baseline: caps that never bind", { MAX_QUEUE_BYTES: String(2 ** 31), MAX_QUEUE_MESSAGES: String(10 ** 6) });
for (const r of [bounded, unbounded]) {
  console.log(
    `   ${r.label}\n` +
      `     queue peak ${mib(r.queuePeak.bytes / 1048576)} in ${r.queuePeak.messages} messages (incl. reserved); ` +
      `workerd RSS before ${mib(r.rssBefore)}, peak ${mib(r.peak)} (+${mib(r.peak - r.rssBefore)}), after drain ${mib(r.rssAfter)}\n` +
      `     statuses ${JSON.stringify(r.statuses)}; accepted ${r.accepted}, answered ${r.answered}, duplicates ${r.duplicates}`,
  );
}
const growth = (r) => Math.max(r.peak - r.rssBefore, 0.1);
console.log(`   peak queue bytes bounded/baseline: ${(bounded.queuePeak.bytes / unbounded.queuePeak.bytes).toFixed(3)}`);
console.log(`   peak RSS growth bounded/baseline: ${(growth(bounded) / growth(unbounded)).toFixed(3)}`);

console.log(`\n2. Hot path: tools/call toUpperCase, ${CALLS} calls each for server and floor in alternating batches, after a warm-up; bare workerd on CPU 1, this client on CPU 0 (minified bundle)`);
// The client on one CPU, workerd on the other: neither takes the other's time.
execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
const workerd = await startWorkerd({ entry: "scripts/bench/floorWorker.ts", vars: { LOG_LEVEL: "error" }, objects: { FLOOR: "FloorObject" }, cpu: 1 });
let rows;
try {
  rows = await hotPath(workerd.url, { sessions: SESSIONS, calls: CALLS });
} finally {
  closeConnections();
  await workerd.dispose();
}
printHotPath(rows);

console.log(`\n3. The same calls on Deno (sessions in-process, no floors; also on CPU 1), as ratios to workerd's calls/s above`);
const deno = await startDenoServer({ vars: { LOG_LEVEL: "error" }, cpu: 1 });
try {
  const denoRows = await hotPath(deno.url, { sessions: [SESSIONS[0]], calls: CALLS, modes: ["2026-07-28", "Streamable HTTP"], floors: false });
  for (const r of denoRows) {
    const onWorkerd = rows.find((w) => w.mode === r.mode && w.sessions === r.sessions);
    console.log(`   ${r.mode.padEnd(18)}${String(r.sessions).padEnd(10)}${r.server.perSecond.toFixed(0).padStart(8)} calls/s   ${(r.server.perSecond / onWorkerd.server.perSecond).toFixed(2)}x workerd`);
  }
} finally {
  closeConnections();
  await deno.dispose();
}
process.exit(0);
