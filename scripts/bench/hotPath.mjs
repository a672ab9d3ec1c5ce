/**
 * The hot path, measured against floors in the same workerd and the same run (`floorWorker.ts`):
 * the same `tools/call` (toUpperCase) in each era, and the least work that carries the same
 * exchange. For each mode and session count it prints calls per second and the server's CPU per
 * call, and both as ratios to the floor.
 *
 * Server CPU is read from the kernel: the summed on-CPU nanoseconds of every thread of the workerd
 * processes this node process started (`/proc/<pid>/task/<tid>/schedstat`), before and after a
 * run. The client (this process) is not counted. Each run is preceded by a discarded warm-up run
 * of the same shape, so the JIT's warm-up is not billed to whichever mode goes first. Floor and
 * server alternate in batches (`rounds` of each), so that the drift of a shared 2-core machine,
 * tens of percent between runs, falls on both alike and leaves their ratio steady.
 */
import { Agent, request } from "node:http";
import { postJson } from "./postJson.mjs";
import { sseEvents } from "./sseEvents.mjs";
import { workerdCpuNs } from "./workerdProcesses.mjs";

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };


/** One POST on this script's keep-alive connections. */
const post = (url, headers, body) => postJson(agent, url, headers, body);

function callBody(id, meta) {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "bench" }, ...(meta ? { _meta: meta } : {}) } });
}

function expectCall(response) {
  if (response.status !== 200 || !response.text.includes("BENCH")) throw new Error(`tools/call answered ${response.status}: ${response.text.slice(0, 200)}`);
}

/** An open SSE stream; `next(id)` resolves when the event answering `id` arrives. */
function openStream(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      const waiting = new Map();
      let endpoint;
      res.setEncoding("utf8");
      res.on(
        "data",
        sseEvents((event, data) => {
          if (event === "endpoint") {
            endpoint = data;
            resolve(stream);
          } else if (event === "message") {
            const id = JSON.parse(data).id;
            waiting.get(id)?.();
            waiting.delete(id);
          }
        }),
      );
      const stream = {
        get endpoint() {
          return endpoint;
        },
        next: (id) => new Promise((r) => waiting.set(id, r)),
        close: () => res.destroy(),
      };
      // The floor's stream has no endpoint event: it is ready once its headers arrive.
      if (!url.includes("/sse")) resolve(stream);
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * A mode: `open(n)` prepares n sessions and returns one call function per session (each call
 * resolves once its answer is in), plus `close()`.
 */
const MODES = {
  "2026-07-28": {
    floor: "bare Worker echo",
    async open(base, n) {
      const headers = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "toUpperCase" };
      let id = 0;
      return { calls: Array.from({ length: n }, () => async () => expectCall(await post(`${base}/mcp`, headers, callBody(++id, MODERN_META)))), close() {} };
    },
    async openFloor(base, n) {
      let id = 0;
      return { calls: Array.from({ length: n }, () => async () => expectCall(await post(`${base}/floor/echo`, {}, callBody(++id)))), close() {} };
    },
  },
  "Streamable HTTP": {
    floor: "Worker → Durable Object echo",
    async open(base, n) {
      const calls = [];
      for (let s = 0; s < n; s++) {
        const init = await post(`${base}/mcp`, { accept: "application/json, text/event-stream" }, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }));
        const session = init.headers["mcp-session-id"];
        if (!session) throw new Error(`initialize answered ${init.status}: ${init.text}`);
        const headers = { accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
        let id = 0;
        calls.push(async () => expectCall(await post(`${base}/mcp`, headers, callBody(++id))));
      }
      return { calls, close() {} };
    },
    async openFloor(base, n) {
      let id = 0;
      return { calls: Array.from({ length: n }, (_, s) => async () => expectCall(await post(`${base}/floor/object?session=s${s}`, {}, callBody(++id)))), close() {} };
    },
  },
  "legacy HTTP+SSE": {
    floor: "Worker → Durable Object writing to the open stream",
    async open(base, n) {
      const streams = await Promise.all(Array.from({ length: n }, () => openStream(`${base}/sse`)));
      return {
        calls: streams.map((stream) => {
          let id = 0;
          return async () => {
            const mine = ++id;
            const answered = stream.next(mine);
            const response = await post(new URL(stream.endpoint, base).href, {}, callBody(mine));
            if (response.status !== 202) throw new Error(`POST /message answered ${response.status}: ${response.text}`);
            await answered;
          };
        }),
        close: () => streams.forEach((s) => s.close()),
      };
    },
    async openFloor(base, n) {
      const streams = await Promise.all(Array.from({ length: n }, (_, s) => openStream(`${base}/floor/stream?session=l${s}`)));
      return {
        calls: streams.map((stream, s) => {
          let id = 0;
          return async () => {
            const mine = ++id;
            const answered = stream.next(mine);
            const response = await post(`${base}/floor/object?session=l${s}&stream=1`, {}, callBody(mine));
            if (response.status !== 202) throw new Error(`floor POST answered ${response.status}`);
            await answered;
          };
        }),
        close: () => streams.forEach((s) => s.close()),
      };
    },
  },
};

/** Runs `total` calls spread over the sessions, each session one call at a time. */
async function drive(calls, total) {
  let next = 0;
  const cpuBefore = workerdCpuNs();
  const started = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      while (next < total) {
        next++;
        await call();
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, cpuMs: (workerdCpuNs() - cpuBefore) / 1e6, calls: total };
}

/** Adds up runs into calls per second and CPU ms per call. */
function figures(runs) {
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  return { perSecond: calls / runs.reduce((n, r) => n + r.seconds, 0), cpuMsPerCall: runs.reduce((n, r) => n + r.cpuMs, 0) / calls };
}

async function measure(open, base, n, total) {
  const opened = await open(base, n);
  try {
    await drive(opened.calls, Math.min(total, 1_000));
    return figures([await drive(opened.calls, total)]);
  } finally {
    opened.close();
  }
}

/**
 * Floor and server side by side: both opened and warmed up, then `rounds` batches of each in
 * turn, so that whatever the machine does meanwhile falls on both alike.
 */
async function compare(spec, base, n, calls, rounds, withFloor) {
  const server = await spec.open(base, n);
  const floor = withFloor ? await spec.openFloor(base, n) : undefined;
  try {
    await drive(server.calls, 1_000);
    if (floor) await drive(floor.calls, 1_000);
    const batch = Math.ceil(calls / rounds);
    const serverRuns = [];
    const floorRuns = [];
    for (let round = 0; round < rounds; round++) {
      if (floor) floorRuns.push(await drive(floor.calls, batch));
      serverRuns.push(await drive(server.calls, batch));
    }
    // Each round's CPU ratio, floor and server measured back to back: their median and range say
    // how far the machine's drift moves the ratio of totals printed beside them.
    const roundRatios = floor ? serverRuns.map((run, i) => run.cpuMs / run.calls / (floorRuns[i].cpuMs / floorRuns[i].calls)).sort((a, b) => a - b) : [];
    return { server: figures(serverRuns), floor: floor && figures(floorRuns), roundRatios };
  } finally {
    server.close();
    floor?.close();
  }
}

/**
 * @param {string} base the server's URL (floorWorker.ts)
 * @param {{ sessions: number[], calls: number, modes?: string[], floors?: boolean, rounds?: number }} options
 *   `calls` per side, in `rounds` alternating batches; `floors: false` for a server without them (Deno)
 * @returns {Promise<object[]>} one row per mode and session count
 */
export async function hotPath(base, { sessions, calls, modes = Object.keys(MODES), floors = true, rounds = 8 }) {
  const rows = [];
  for (const mode of modes) {
    const spec = MODES[mode];
    for (const n of sessions) {
      const { server, floor, roundRatios } = await compare(spec, base, n, calls, rounds, floors);
      if (!floor) {
        rows.push({ mode, sessions: n, server });
        continue;
      }
      const median = roundRatios[Math.floor((roundRatios.length - 1) / 2)] / 2 + roundRatios[Math.ceil((roundRatios.length - 1) / 2)] / 2;
      rows.push({ mode, sessions: n, floorName: spec.floor, server, floor, rate: server.perSecond / floor.perSecond, cpu: server.cpuMsPerCall / floor.cpuMsPerCall, rounds: { median, min: roundRatios[0], max: roundRatios.at(-1) } });
    }
  }
  return rows;
}

/**
 * One mode's calls (or its floor's) at `sessions` sessions, after a warm-up run; for profiling.
 * @returns {Promise<{ perSecond: number, cpuMsPerCall: number }>}
 */
export function runMode(base, mode, { sessions, calls, floor = false }) {
  const spec = MODES[mode];
  if (!spec) throw new Error(`Unknown mode ${mode}; one of ${Object.keys(MODES).join(", ")}`);
  return measure(floor ? spec.openFloor : spec.open, base, sessions, calls);
}

/** The modes, in the order the bench prints them. */
export const MODE_NAMES = Object.keys(MODES);

/** Closes the client's keep-alive connections, so the server can shut down at once. */
export function closeConnections() {
  agent.destroy();
}

export function printHotPath(rows) {
  const pad = (s, n) => String(s).padEnd(n);
  const num = (x, d) => x.toFixed(d).padStart(8);
  console.log(`   ${pad("mode", 18)}${pad("sessions", 10)}${"calls/s".padStart(8)} ${"floor".padStart(8)} ${"ratio".padStart(8)}   ${"CPU ms".padStart(8)} ${"floor".padStart(8)} ${"ratio".padStart(8)}   rounds: median [min–max]`);
  for (const r of rows) {
    const spread = `${r.rounds.median.toFixed(2)}x [${r.rounds.min.toFixed(2)}–${r.rounds.max.toFixed(2)}]`;
    console.log(`   ${pad(r.mode, 18)}${pad(r.sessions, 10)}${num(r.server.perSecond, 0)} ${num(r.floor.perSecond, 0)} ${num(r.rate, 2)}x   ${num(r.server.cpuMsPerCall, 3)} ${num(r.floor.cpuMsPerCall, 3)} ${num(r.cpu, 2)}x   ${spread}`);
  }
  console.log("   floors: " + [...new Set(rows.map((r) => `${r.mode}: ${r.floorName}`))].join("; "));
  console.log("   goal: calls/s ≥ 0.8x the floor's and CPU per call ≤ 1.3x, in every mode");
}
