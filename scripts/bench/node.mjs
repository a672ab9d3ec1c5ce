/**
 * `npm run bench:node`: `serveNode` beside its peers on Node, one tool (`shout`), each server a
 * child process on 127.0.0.1:
 * - bare `node:http` (`node/bareServer.mjs`): parses the JSON-RPC body and answers the result, the
 *   baseline every ratio is taken against;
 * - the official SDK v1 with its sessionful `StreamableHTTPServerTransport` (`node/sdkV1Server.mjs`),
 *   on 2025 sessions only (it has no 2026-07-28);
 * - `serveNode` serving `node/oneTool.ts`, bundled as the tests bundle it (`startNodeServer`).
 *
 * Two modes: 2025 sessions (each client initializes once, then calls with its session id) and
 * 2026-07-28 (no session). CLIENTS clients call at once, each on its own keep-alive connection,
 * and every answer is checked (status, and the upper-cased text of its own call). CPU per call is
 * the server process's own time on CPU, all its threads (`/proc/<pid>/task/<tid>/schedstat`),
 * read before and after a run; this process, the client, is not counted. Each server gets a
 * discarded warm-up run, then the servers take turns in rounds (the order rotating every round),
 * so that a shared machine's drift falls on all alike; ratios to the baseline are taken per round
 * and printed as their median and range. Bounded: at most ROUNDS rounds and about MAX_SECONDS.
 *
 * Environment: BENCH_CALLS (calls per run, default 4000), BENCH_ROUNDS (5), BENCH_CLIENTS (8),
 * BENCH_SECONDS (120), BENCH_ONLY (a server's name: run it alone, for a profile), BENCH_BEFORE (the
 * directory of another checkout of this repository, its dependencies installed: its `serveNode`
 * joins the rounds as "before", for a change's before and after in one run), BENCH_PROFILE (a
 * directory: every server runs under `node --cpu-prof`, its profile written there, named by its
 * process id, when it stops).
 */
import { Agent } from "node:http";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startServingProcess } from "../startServingProcess.mjs";
import { answerOf, cpuNs, range } from "./measures.mjs";
import { postJson } from "./postJson.mjs";
import { bundleNodeEntry } from "../startNodeServer.mjs";
import { wranglerConfig } from "../wranglerConfig.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 120);
const ONLY = process.env.BENCH_ONLY;
const BEFORE = process.env.BENCH_BEFORE;
const PROFILE = process.env.BENCH_PROFILE;
const PROFILE_FLAGS = PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE}`] : [];

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const ACCEPT = "application/json, text/event-stream";

/** One POST of a client on its own kept-alive connection. */
const post = (agent, url, headers, body) => postJson(agent, url, { accept: ACCEPT, ...headers }, body);

function expectShout(response, id, text) {
  const message = response.status === 200 ? answerOf(response.text, id) : undefined;
  if (message?.result?.content?.[0]?.text !== text.toUpperCase()) throw new Error(`tools/call ${id} answered ${response.status}: ${response.text.slice(0, 300)}`);
}

/** A client of `base`: its own connection, and `call()` for one checked tools/call. */
async function openClient(base, mode) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = `${base}/mcp`;
  let id = 0;
  if (mode === "2026-07-28") {
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "shout" };
    return {
      async call() {
        const n = ++id;
        const text = `bench ${n}`;
        expectShout(await post(agent, url, headers, JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "shout", arguments: { text }, _meta: MODERN_META } })), n, text);
      },
      close: () => agent.destroy(),
    };
  }
  const init = await post(agent, url, {}, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }));
  const session = init.headers["mcp-session-id"];
  if (init.status !== 200 || !session) throw new Error(`initialize answered ${init.status}: ${init.text.slice(0, 300)}`);
  const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  const initialized = await post(agent, url, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}: ${initialized.text.slice(0, 300)}`);
  return {
    async call() {
      const n = ++id;
      const text = `bench ${n}`;
      expectShout(await post(agent, url, headers, JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "shout", arguments: { text } } })), n, text);
    },
    close: () => agent.destroy(),
  };
}

/** `calls` calls shared among `clients`, all at once; the wall time and the server's CPU they took. */
async function run(server, clients, calls) {
  let left = calls;
  const cpuBefore = cpuNs(server.pid);
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (client) => {
      while (left > 0) {
        left--;
        await client.call();
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuUs = (cpuNs(server.pid) - cpuBefore) / 1e3;
  return { callsPerSecond: calls / seconds, cpuUsPerCall: cpuUs / calls };
}

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const ONE_TOOL = "scripts/bench/node/oneTool.ts";
const SERVERS = {
  bare: () => startServingProcess({ command: [process.execPath, ...PROFILE_FLAGS, join(ROOT, "scripts/bench/node/bareServer.mjs"), "--port", "0"], env: process.env, runtime: "node" }),
  "sdk v1": () => startServingProcess({ command: [process.execPath, ...PROFILE_FLAGS, join(ROOT, "scripts/bench/node/sdkV1Server.mjs"), "--port", "0"], env: process.env, runtime: "node" }),
  serveNode: () => startServeNode(ROOT),
  ...(BEFORE ? { before: () => startBefore(BEFORE) } : {}),
};
const MODES = [
  { mode: "2025 sessions", servers: ["bare", "sdk v1", "before", "serveNode"] },
  { mode: "2026-07-28", servers: ["bare", "before", "serveNode"] },
];

/** `serveNode` of the checkout in `dir`, serving this checkout's definition (copied there). */
async function startBefore(dir) {
  mkdirSync(dirname(join(dir, ONE_TOOL)), { recursive: true });
  copyFileSync(join(ROOT, ONE_TOOL), join(dir, ONE_TOOL));
  return startServeNode(dir);
}

/** `serveNode` serving ONE_TOOL, bundled by the checkout in `dir` as its tests bundle it. */
async function startServeNode(dir) {
  const { bundleNodeEntry: bundle } = dir === ROOT ? { bundleNodeEntry } : await import(pathToFileURL(join(dir, "scripts/startNodeServer.mjs")).href);
  const bundled = await bundle({ definition: ONE_TOOL });
  const env = { ...process.env, ...wranglerConfig().vars, LOG_LEVEL: "error", NO_COLOR: "1" };
  const server = await startServingProcess({ command: [process.execPath, ...PROFILE_FLAGS, bundled.outfile, "--port", "0"], env, runtime: "node" });
  return { ...server, dispose: async () => (await server.dispose(), bundled.remove()) };
}

const deadline = Date.now() + MAX_SECONDS * 1000;
const names = ONLY ? [ONLY] : Object.keys(SERVERS);
const started = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await SERVERS[name]()])));
if (PROFILE) console.log(`profiles in ${PROFILE}: ${names.map((name) => `${name} ${started[name].pid}`).join(", ")}`);
try {
  for (const { mode, servers } of MODES) {
    const here = servers.filter((name) => started[name]);
    const clients = {};
    for (const name of here) {
      clients[name] = await Promise.all(Array.from({ length: CLIENTS }, () => openClient(started[name].url, mode)));
      await run(started[name], clients[name], Math.min(CALLS, 2_000));
    }
    const results = Object.fromEntries(here.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS && (round === 0 || Date.now() < deadline); round++) {
      const order = here.map((_, i) => here[(i + round) % here.length]);
      for (const name of order) results[name].push(await run(started[name], clients[name], CALLS));
    }
    for (const name of here) for (const client of clients[name]) client.close();
    console.log(`\n${mode}: ${results[here[0]].length} rounds of ${CALLS} calls, ${CLIENTS} clients at once`);
    console.log(`${"server".padEnd(12)}${"calls/s".padEnd(22)}${"CPU µs/call".padEnd(22)}${"calls/s vs bare".padEnd(24)}CPU/call vs bare`);
    for (const name of here) {
      const mine = results[name];
      const base = results.bare;
      const ratios = (key) => (base ? range(mine.map((r, i) => r[key] / base[i][key]), 2) + "x" : "");
      console.log(`${name.padEnd(12)}${range(mine.map((r) => r.callsPerSecond), 0).padEnd(22)}${range(mine.map((r) => r.cpuUsPerCall), 1).padEnd(22)}${ratios("callsPerSecond").padEnd(24)}${ratios("cpuUsPerCall")}`);
    }
    for (const [mine, theirs] of [["serveNode", "sdk v1"], ["before", "sdk v1"], ["serveNode", "before"]]) {
      const a = results[mine];
      const b = results[theirs];
      if (a && b) console.log(`${mine} vs ${theirs}: calls/s ${range(a.map((r, i) => r.callsPerSecond / b[i].callsPerSecond), 2)}x, CPU/call ${range(a.map((r, i) => r.cpuUsPerCall / b[i].cpuUsPerCall), 2)}x`);
    }
  }
} finally {
  await Promise.all(Object.values(started).map((server) => server.dispose()));
}
