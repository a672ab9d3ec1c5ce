/**
 * `npm run bench:flood`: memory after repeated abuse (issue 11, part 4). On one bare-workerd
 * server, ROUNDS times: a legacy HTTP+SSE client opens its stream and stops reading while it
 * posts WAVE concurrent 32 KiB tool calls at a time, until 429s come back (or MAX_WAVES); then it
 * reads what was accepted — every accepted request must be answered, once — and leaves. After
 * each round (and a short settle) it prints workerd's RSS. A session's object must release its
 * queue and buffers when its client leaves, so RSS levels off instead of growing per round.
 *
 * Goal: growth from round 2 to the last ≤ 24 MiB. workerd runs every object in one isolate, so
 * the process staying far under 128 MiB (Cloudflare's isolate limit) bounds every object too.
 *
 * @example npm run bench:flood        # about a minute
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
const server = await startWorkerd({ entry: "example/worker.ts", onDisk: true, inspectorPort: INSPECTOR_PORT, vars: { LOG_LEVEL: "error" } });
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

async function round(n) {
  const stream = await openLegacyStream(server.port);
  stream.pause();
  const endpoint = new URL(stream.endpoint, server.url);
  const accepted = new Set();
  const statuses = {};
  let id = 0;
  for (let wave = 0; wave < MAX_WAVES && !statuses[429]; wave++) {
    const posts = Array.from({ length: WAVE }, async () => {
      const callId = ++id;
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: callId, method: "tools/call", params: { name: "toUpperCase", arguments: { input } } }),
      });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status === 202) accepted.add(callId);
    });
    await Promise.all(posts);
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

try {
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
} finally {
  inspector.close();
  await server.dispose();
}
