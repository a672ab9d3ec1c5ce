/**
 * `npm run bench:flood`: memory after repeated abuse. On one bare-workerd
 * server, ROUNDS times: a legacy HTTP+SSE client opens its stream and stops reading while it
 * posts WAVE concurrent 32 KiB tool calls at a time, until 429s come back (or MAX_WAVES); then it
 * reads what was accepted — every accepted request must be answered, once — and leaves. After
 * each round (and a short settle) it prints workerd's RSS. A session's object must release its
 * queue and buffers when its client leaves, so RSS levels off instead of growing per round.
 *
 * Goal: growth from round 2 to the last ≤ 24 MiB. workerd runs every object in one isolate, so
 * the process staying far under 128 MiB (Cloudflare's isolate limit) bounds every object too.
 *
 * With FLOOD_CALLS=N, one stalled reader instead: the client reads nothing while it posts N calls
 * in waves of WAVE (429s or not), workerd's RSS sampled after every wave; then it reads, and every
 * accepted call must be answered once. Prints the growth from idle to the peak (goal ≤ 32 MiB), and
 * where it was after the first wave (the session's first use) and when the first 429 came (the
 * accepted calls), so the refused calls' share is the rest.
 *
 * It also prints the isolate's heap while the reader is stalled (used, reserved, outside the heap in
 * array buffers, live after a collection). FLOOD_SAMPLE=1 adds the JavaScript allocation sites
 * sampled meanwhile, largest first (from an unminified bundle); FLOOD_VARS='{"MAX_QUEUE_BYTES":"1048576"}'
 * passes variables to the server, to compare its bounds.
 *
 * @example npm run bench:flood                      # about a minute
 * @example FLOOD_CALLS=1500 npm run bench:flood     # the stalled reader, about 20 s
 */
import { openInspector } from "./inspector.mjs";
import { openLegacyStream } from "./legacyStream.mjs";
import { workerdRssMiB } from "./workerdProcesses.mjs";
import { startWorkerd } from "../startWorkerd.mjs";

const ROUNDS = Number(process.env.FLOOD_ROUNDS ?? 12);
const WAVE = 16;
const MAX_WAVES = 40;
const INPUT_KIB = 32;
/** After a round; FLOOD_SETTLE_MS=11000 lets workerd evict the idle objects (10 s) before RSS is read. */
const SETTLE_MS = Number(process.env.FLOOD_SETTLE_MS ?? 1_500);

// Storage on disk, as in production: in memory, each object's SQLite database would count in the RSS measured.
const INSPECTOR_PORT = 9231;
const server = await startWorkerd({ entry: "example/worker.ts", onDisk: true, minify: !process.env.FLOOD_SAMPLE, inspectorPort: INSPECTOR_PORT, vars: { LOG_LEVEL: "error", ...JSON.parse(process.env.FLOOD_VARS ?? "{}") } });
const inspector = await openInspector(INSPECTOR_PORT);

/**
 * The isolate's live JavaScript heap, in MiB, after a full collection: what is really kept.
 * workerd's inspector does not take `HeapProfiler.collectGarbage`; a heap snapshot collects first.
 */
async function liveHeapMiB() {
  await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  const { usedSize } = await inspector.send("Runtime.getHeapUsage");
  return usedSize / 1024 / 1024;
}
const input = "a".repeat(INPUT_KIB * 1024);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** POSTs one `toUpperCase` call to a legacy session's endpoint; counts its status, and its id as accepted on 202. */
async function postCall(endpoint, callId, statuses, accepted) {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "toUpperCase", arguments: { input } } }),
  });
  await response.arrayBuffer();
  statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  if (response.status === 202) accepted.add(callId);
}

async function round(n) {
  const stream = await openLegacyStream(server.port);
  stream.pause();
  const endpoint = new URL(stream.endpoint, server.url);
  const accepted = new Set();
  const statuses = {};
  let id = 0;
  for (let wave = 0; wave < MAX_WAVES && !statuses[429]; wave++) {
    await Promise.all(Array.from({ length: WAVE }, () => postCall(endpoint, ++id, statuses, accepted)));
  }
  stream.resume();
  const answered = () => stream.messages.filter((m) => accepted.has(m.id)).length;
  await stream.until(() => answered() >= accepted.size, 60_000);
  const duplicates = stream.messages.length - new Set(stream.messages.map((m) => m.id)).size;
  stream.close();
  await sleep(SETTLE_MS);
  return {
    round: n,
    posted: id,
    statuses: JSON.stringify(statuses),
    accepted: accepted.size,
    answered: answered(),
    duplicates,
    "workerd RSS MiB": +workerdRssMiB().toFixed(1),
    "live heap MiB": +(await liveHeapMiB()).toFixed(1),
  };
}

/** One client that reads nothing while it posts `calls` calls (see the module header). */
async function stalled(calls) {
  const idle = workerdRssMiB();
  const idleUsage = await inspector.send("Runtime.getHeapUsage");
  const stream = await openLegacyStream(server.port);
  stream.pause();
  const endpoint = new URL(stream.endpoint, server.url);
  const accepted = new Set();
  const statuses = {};
  let peak = idle;
  let firstWave;
  let full;
  if (process.env.FLOOD_SAMPLE) await inspector.send("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let id = 1; id <= calls; ) {
    const wave = Array.from({ length: Math.min(WAVE, calls - id + 1) }, () => id++);
    await Promise.all(wave.map((callId) => postCall(endpoint, callId, statuses, accepted)));
    const rss = workerdRssMiB();
    peak = Math.max(peak, rss);
    firstWave ??= rss;
    if (statuses[429] && full === undefined) full = rss;
  }
  if (process.env.FLOOD_SAMPLE) {
    const { profile } = await inspector.send("HeapProfiler.stopSampling");
    const bySite = new Map();
    const walk = (node, stack) => {
      const frame = `${node.callFrame.functionName || "(anon)"}@${node.callFrame.lineNumber}:${node.callFrame.columnNumber}`;
      const here = [...stack, frame];
      if (node.selfSize) bySite.set(here.slice(-4).join(" < "), (bySite.get(here.slice(-4).join(" < ")) ?? 0) + node.selfSize);
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head, []);
    const total = [...bySite.values()].reduce((a, b) => a + b, 0);
    console.log(`JavaScript allocations sampled while stalled: ${(total / 1048576).toFixed(1)} MiB; the largest sites:`);
    for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(bytes / 1048576).toFixed(2)} MiB ${site.split(" < ").reverse().join(" < ")}`);
  }
  const { usedSize, totalSize, backingStorageSize = 0 } = await inspector.send("Runtime.getHeapUsage");
  const live = await liveHeapMiB();
  const collected = workerdRssMiB();
  stream.resume();
  const answered = () => stream.messages.filter((m) => accepted.has(m.id)).length;
  await stream.until(() => answered() >= accepted.size, 60_000);
  const duplicates = stream.messages.length - new Set(stream.messages.map((m) => m.id)).size;
  stream.close();
  const mib = (bytes) => (bytes / 1048576).toFixed(1);
  console.log(`while stalled: JS heap used ${mib(usedSize)} of ${mib(totalSize)} MiB (idle: ${mib(idleUsage.totalSize)}), array buffers ${mib(backingStorageSize)} MiB, live after a collection ${live.toFixed(1)} MiB, RSS then ${collected.toFixed(1)} MiB`);
  console.log(`stalled reader, ${calls} calls of ${INPUT_KIB} KiB: statuses ${JSON.stringify(statuses)}; accepted ${accepted.size}, answered ${answered()}, lost ${accepted.size - answered()}, duplicates ${duplicates}`);
  const since = (rss) => (rss === undefined ? "-" : `+${(rss - idle).toFixed(1)}`);
  console.log(`workerd RSS growth after the first wave ${since(firstWave)} MiB, at the first 429 ${since(full)} MiB`);
  console.log(`workerd RSS idle ${idle.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB: growth ${(peak - idle).toFixed(1)} MiB (goal ≤ 32)`);
}

/** ROUNDS rounds of flood and leave (see the module header). */
async function rounds() {
  const idle = workerdRssMiB();
  const idleHeap = await liveHeapMiB();
  const rows = [];
  for (let n = 1; n <= ROUNDS; n++) rows.push(await round(n));
  console.log(`idle: workerd RSS ${idle.toFixed(1)} MiB, live heap ${idleHeap.toFixed(1)} MiB`);
  console.table(rows);
  const rss = rows.map((r) => r["workerd RSS MiB"]);
  const growth = rss.at(-1) - rss[Math.min(1, rss.length - 1)];
  console.log(`RSS growth from round 2 to round ${ROUNDS}: ${growth.toFixed(1)} MiB (goal ≤ 24); peak ${Math.max(...rss).toFixed(1)} MiB`);
  const heap = rows.map((r) => r["live heap MiB"]);
  console.log(`live heap after each round: ${heap[0]} → ${heap.at(-1)} MiB (growth from round 2: ${(heap.at(-1) - heap[1]).toFixed(1)} MiB; isolate limit 128)`);
}

try {
  if (process.env.FLOOD_CALLS) await stalled(Number(process.env.FLOOD_CALLS));
  else await rounds();
} finally {
  inspector.close();
  await server.dispose();
}
