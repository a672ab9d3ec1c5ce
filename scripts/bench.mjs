/**
 * `npm run bench`: prints figures, asserts nothing (tests assert behaviour). Two measurements,
 * each against a baseline taken in the same run on the same machine:
 *
 * 1. Backpressure memory. A legacy client opens /sse, reads the endpoint event, then stops
 *    reading. It POSTs REQUESTS toUpperCase calls of REPLY_KIB KiB each (far more than the queue
 *    holds), then reads again. Run once with the default caps (4 MiB / 1,000 messages) and once
 *    with caps so large they never bind (the baseline: what an unbounded queue would hold).
 *    Prints workerd's RSS before, at the peak and after, the statuses seen, and whether every
 *    accepted request was answered.
 * 2. Round-trip rate. `ping` over a session (Worker → Durable Object → stream) against
 *    `GET /health` (Worker only), same client concurrency: the ratio is the cost of the session hop.
 * 3. The same tool call (`toUpperCase`) on 2026-07-28 (answered by the Worker, no session) and on
 *    a 2025-11-25 Streamable HTTP session (Worker → Durable Object, JSON reply), same concurrency.
 * 4. Those two calls again on the Deno server (`deno/main.ts`, sessions in-process), as ratios
 *    against the workerd figures of the same run.
 *
 * Runs on bare workerd through miniflare's API (no wrangler dev proxy). Bounded in count and
 * time; binds 127.0.0.1 only.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { startDenoServer } from "./startDenoServer.mjs";
import { startServer } from "./startServer.mjs";

/** Override with BENCH_REQUESTS=N to check that memory plateaus rather than grows with N. */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3_000);
const REPLY_KIB = 64;
const PINGS = 2_000;
const CONCURRENCY = 16;

/** RSS in MiB of the workerd processes this node process started. */
function workerdRssMiB() {
  const pids = execFileSync("pgrep", ["-P", String(process.pid)], { encoding: "utf8" }).split("\n").filter(Boolean);
  let kib = 0;
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd")) continue;
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
    } catch {
      // the process ended between listing and reading
    }
  }
  return kib / 1024;
}

/** Opens /sse on a raw socket so reading can be paused and resumed at will. */
function openLegacyStream(port) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/sse", headers: { accept: "text/event-stream" } }, (res) => {
      let buffer = "";
      const messages = [];
      let endpoint;
      let waiter;
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (block.startsWith("event: endpoint")) {
            endpoint = data;
            resolve(stream);
          } else if (block.startsWith("event: message")) messages.push(JSON.parse(data));
        }
        waiter?.();
      });
      const stream = {
        get endpoint() {
          return endpoint;
        },
        messages,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => res.destroy(),
        async until(predicate, timeoutMs) {
          const deadline = Date.now() + timeoutMs;
          while (!predicate()) {
            if (Date.now() > deadline) throw new Error("timed out waiting for replies");
            await new Promise((r) => {
              waiter = r;
              setTimeout(r, 100);
            });
          }
        },
      };
    });
    req.on("error", reject);
    req.end();
  });
}

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

async function rate(server, label, once) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PINGS) {
        next++;
        await once();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { label, perSecond: PINGS / seconds };
}

/** The same `tools/call` made statelessly (2026-07-28) and on a 2025-11-25 session, on `server`. */
async function toolCallRates(server, statelessWhere, sessionWhere) {
  const call = (headers, meta) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "bench" }, ...meta } }),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`tools/call answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    });
  const modernMeta = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } };
  const statelessCall = () => call({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "toUpperCase" }, modernMeta);
  const init = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }),
  });
  const sessionId = init.headers.get("mcp-session-id");
  await init.arrayBuffer();
  const sessionCall = () => call({ "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }, {});
  // Discarded first passes of both: whichever path ran first would otherwise pay the JIT's
  // warm-up, and the two share most of their code.
  await rate(server, "warm-up", statelessCall);
  await rate(server, "warm-up", sessionCall);
  const stateless = await rate(server, `tools/call on 2026-07-28 (${statelessWhere}, no session)`, statelessCall);
  const session = await rate(server, `tools/call on a 2025-11-25 session (${sessionWhere})`, sessionCall);
  return [stateless, session];
}

async function roundTrips() {
  const server = await startServer({ vars: { LOG_LEVEL: "error" } });
  const healthCheck = async () => {
    await (await fetch(`${server.url}/health`)).arrayBuffer();
  };
  await rate(server, "warm-up", healthCheck);
  const health = await rate(server, "GET /health (Worker only)", healthCheck);
  const stream = await openLegacyStream(server.port);
  let id = 0;
  const pending = new Map();
  const seen = stream.messages;
  const pump = setInterval(() => {
    while (seen.length) pending.get(seen.shift().id)?.();
  }, 1);
  const ping = await rate(server, "ping over HTTP+SSE (Worker → Durable Object → stream)", async () => {
    const mine = ++id;
    const replied = new Promise((r) => pending.set(mine, r));
    const response = await fetch(new URL(stream.endpoint, server.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: mine, method: "ping" }),
    });
    await response.arrayBuffer();
    await replied;
    pending.delete(mine);
  });
  clearInterval(pump);
  stream.close();

  const [stateless, session] = await toolCallRates(server, "Worker only", "Worker → Durable Object");
  await server.dispose();
  return [health, ping, stateless, session];
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

console.log(`\n2. Round trips, ${PINGS} requests, ${CONCURRENCY} concurrent`);
const [health, ping, stateless, session] = await roundTrips();
for (const r of [health, ping, stateless, session]) console.log(`   ${r.label.padEnd(64)} ${r.perSecond.toFixed(0)} req/s`);
console.log(`   ratio session round trip / Worker-only: ${(ping.perSecond / health.perSecond).toFixed(3)}`);
console.log(`   ratio tools/call 2026-07-28 stateless / 2025-11-25 session: ${(stateless.perSecond / session.perSecond).toFixed(3)}`);

console.log(`\n3. The same tools/call on Deno (deno/main.ts: routes on Deno.serve, sessions in-process), ${PINGS} requests, ${CONCURRENCY} concurrent`);
const deno = await startDenoServer({ vars: { LOG_LEVEL: "error" } });
const [denoStateless, denoSession] = await toolCallRates(deno, "Deno", "Deno, in-process session");
await deno.dispose();
for (const r of [denoStateless, denoSession]) console.log(`   ${r.label.padEnd(64)} ${r.perSecond.toFixed(0)} req/s`);
console.log(`   ratio Deno / workerd, 2026-07-28 stateless: ${(denoStateless.perSecond / stateless.perSecond).toFixed(3)}`);
console.log(`   ratio Deno / workerd, 2025-11-25 session: ${(denoSession.perSecond / session.perSecond).toFixed(3)}`);
