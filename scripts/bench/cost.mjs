/**
 * `npm run bench:cost`: what a session costs, by client shape, counted the way Cloudflare bills a
 * Durable Object. Runs the example server on bare workerd with its session object metered
 * (`costWorker.ts`), drives four common shapes, and prints per session: object requests
 * (incoming socket messages count 1/20), storage rows read and written, alarms set, whether the
 * object stayed resident while its client idled (workerd evicts an object with nothing pending
 * after 10 s: an object constructed again after the idle period had been evicted), whether the
 * idle TTL ended the session (its storage wiped) and what is left in storage after it. Then the
 * cost per million sessions at the published prices (requests, rows; duration is not metered).
 *
 * Shapes: (a) claude.ai-like: a new session for every call (initialize, initialized, tools/list,
 * tools/call; the id never reused); (b) Cline-like legacy HTTP+SSE: 10 calls, then idle with the
 * stream open; (c) an SDK client with its GET stream: 10 calls, then idle with the stream open;
 * (d) 2026-07-28: 10 calls, no session; (e) one task (tasks extension): the example's alertSweep
 * created by a 2026-07-28 call, polled with tasks/get at its pollIntervalMs until completed, read
 * once more after idling, then left to its TTL (for (e), "session" reads "task"); (f) user state:
 * a signed-in 2026-07-28 client (the OAuth example's tools, behind a JWT issuer the bench makes,
 * in a second workerd: `costUserWorker.ts`) making 10 calls that write and read its notes in its
 * home object, then idle, then left to the home's retention (for (f), "session" reads "user").
 *
 * Each client's fair shares are counted in its home object (a session or a task taken): what a
 * shape costs there while it runs is added to its row; the sweeps of lapsed shares after, and
 * what the home keeps, are printed below the table.
 *
 * @example npm run bench:cost            # about three minutes
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { startNwsFixtureServer } from "../../test/support/nwsFixtureServer.mjs";
import { startWorkerd } from "../startWorkerd.mjs";
import { sseEvents } from "./sseEvents.mjs";

/** Published Workers Paid prices, 2026 (beyond the included amounts), in dollars. */
const PRICE = { perMillionRequests: 0.15, perMillionRowsRead: 0.001, perMillionRowsWritten: 1.0, perMillionGbSeconds: 12.5 };
/** A Durable Object is billed as 128 MB while resident. */
const OBJECT_GB = 0.125;
const TTL_MS = 20_000;
/** Longer than the idle period, so that the task is still there to be read after it. */
const TASK_TTL_MS = 40_000;
/** The Worker's keepalive: also how soon it notices a client that left. */
const KEEPALIVE_MS = 5_000;
/**
 * Longer than workerd's 10 s inactivity eviction, counted from the last thing pending: a task's
 * run may leave a timer behind it (the example's upstream timeout, 10 s), which keeps its object
 * that much longer.
 */
const IDLE_MS = 25_000;
const CALLS = 10;
const CLAUDE_CALLS = 5;
/** A user's home unused this long is deleted: short, so the bench sees it go. */
const RETENTION_MS = 30_000;
const ISSUER = "https://issuer.bench";

// The example's weather tools read a local stand-in for the National Weather Service.
const nws = await startNwsFixtureServer();
const server = await startWorkerd({
  entry: "scripts/bench/costWorker.ts",
  onDisk: true,
  loopbackOnly: true,
  vars: { LOG_LEVEL: "error", SESSION_IDLE_TTL_MS: String(TTL_MS), TASK_TTL_MS: String(TASK_TTL_MS), KEEPALIVE_INTERVAL_MS: String(KEEPALIVE_MS), NWS_BASE_URL: nws.url },
});
const MCP = `${server.url}/mcp`;

// The user-state Worker, behind a JWT issuer made here.
const keyPair = await generateKeyPair("ES256", { extractable: true });
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(keyPair.publicKey)), kid: "bench", alg: "ES256" }] });
const userServer = await startWorkerd({
  entry: "scripts/bench/costUserWorker.ts",
  onDisk: true,
  loopbackOnly: true,
  vars: { LOG_LEVEL: "error", HOME_RETENTION_MS: String(RETENTION_MS), JWT_ISSUER: ISSUER, JWT_KEYS: jwks, NWS_BASE_URL: nws.url },
});
const token = await new SignJWT({ scope: "mcp" })
  .setProtectedHeader({ alg: "ES256", kid: "bench", typ: "at+jwt" })
  .setIssuer(ISSUER)
  .setSubject("bench-user")
  .setAudience(`${userServer.url}/mcp`)
  .setIssuedAt()
  .setExpirationTime("1h")
  .sign(keyPair.privateKey);
const userMeter = async () => (await fetch(`${userServer.url}/__meter`)).json();
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initialize = (id, protocolVersion) => ({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
const call = (id, input) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input } } });
const post = async (url, body, headers = {}) => {
  const response = await fetch(url, { method: "POST", headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return response;
};
const meter = async () => (await fetch(`${server.url}/__meter`)).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A fetch response's named SSE events, one at a time: `next()` → { event, data }; `cancel()` ends the read. */
function events(response) {
  const queued = [];
  let wake;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const feed = sseEvents((event, data) => {
    queued.push({ event, data });
    wake?.();
  });
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      feed(value);
    }
  })();
  return {
    async next() {
      while (queued.length === 0) await new Promise((r) => (wake = r));
      return queued.shift();
    },
    async nextMessage() {
      return JSON.parse((await this.next()).data);
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

/** The object ids a shape created (home objects aside): those the meter did not know before. */
async function newObjects(before, read = meter) {
  const after = await read();
  return Object.keys(after).filter((id) => !(id in before) && after[id].kind !== "home");
}

const COUNTED = ["requests", "socketMessages", "rowsRead", "rowsWritten", "alarms"];

/** What the home objects (each client's fair shares) were charged between two readings of the meter. */
function homeDelta(before, after) {
  const sum = Object.fromEntries(COUNTED.map((key) => [key, 0]));
  for (const [id, now] of Object.entries(after)) {
    if (now.kind !== "home") continue;
    for (const key of COUNTED) sum[key] += now[key] - (before[id]?.[key] ?? 0);
  }
  return sum;
}

/** One 2026-07-28 request, its routing headers and `_meta` as a client sends them (the tasks extension declared); the JSON-RPC answer. */
async function modern(id, method, params, name) {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name };
  const answer = await (await post(MCP, { jsonrpc: "2.0", id, method, params: { ...params, _meta } }, headers)).json();
  if (answer.error) throw new Error(`${method} answered ${JSON.stringify(answer.error)}`);
  return answer;
}

/** One 2026-07-28 request of the signed-in user to the user-state Worker: the JSON-RPC answer. */
async function signedIn(id, method, params, name) {
  const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
  const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name, authorization: `Bearer ${token}` };
  const answer = await (await post(`${userServer.url}/mcp`, { jsonrpc: "2.0", id, method, params: { ...params, _meta } }, headers)).json();
  if (answer.error || answer.result?.isError) throw new Error(`${method} answered ${JSON.stringify(answer)}`);
  return answer;
}

async function streamableSession(version = "2025-11-25") {
  const response = await post(MCP, initialize(0, version));
  await response.text();
  const headers = { "mcp-session-id": response.headers.get("mcp-session-id"), "mcp-protocol-version": version };
  await (await post(MCP, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).text();
  return headers;
}

const shapes = {};
try {
  // (a) claude.ai-like
  let before = await meter();
  for (let i = 0; i < CLAUDE_CALLS; i++) {
    const headers = await streamableSession();
    await (await post(MCP, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers)).text();
    await (await post(MCP, call(2, `claude ${i}`), headers)).text();
  }
  shapes.a = { objects: await newObjects(before), sessions: CLAUDE_CALLS, callsPerSession: 1, shares: homeDelta(before, await meter()) };

  // (b) Cline-like legacy and (c) SDK with a GET stream: calls, then idle with the stream open.
  before = await meter();
  const legacy = await fetch(`${server.url}/sse`, { headers: { accept: "text/event-stream" } });
  const legacyEvents = events(legacy);
  const endpoint = new URL((await legacyEvents.next()).data, server.url).href;
  await post(endpoint, initialize(0, "2024-11-05"));
  await legacyEvents.nextMessage();
  await post(endpoint, { jsonrpc: "2.0", method: "notifications/initialized" });
  await post(endpoint, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  await legacyEvents.nextMessage();
  for (let id = 2; id < 2 + CALLS; id++) {
    await post(endpoint, call(id, "cline"));
    await legacyEvents.nextMessage();
  }
  const legacyObjects = await newObjects(before);
  const legacyShares = homeDelta(before, await meter());

  before = await meter();
  const sdk = await streamableSession();
  const standalone = await fetch(MCP, { headers: { ...sdk, accept: "text/event-stream" } });
  const standaloneEvents = events(standalone);
  await (await post(MCP, { jsonrpc: "2.0", id: 1, method: "tools/list" }, sdk)).text();
  for (let id = 2; id < 2 + CALLS; id++) await (await post(MCP, call(id, "sdk"), sdk)).text();
  const sdkObjects = await newObjects(before);
  const sdkShares = homeDelta(before, await meter());

  // (e) a task: created, polled as its pollIntervalMs suggests until completed.
  before = await meter();
  const created = await modern(1, "tools/call", { name: "alertSweep", arguments: { states: ["CA", "NY", "TX"] } }, "alertSweep");
  const { taskId, pollIntervalMs } = created.result;
  if (!taskId) throw new Error(`alertSweep was not made a task: ${JSON.stringify(created)}`);
  let polls = 0;
  for (let status = "working"; status !== "completed"; polls++) {
    await sleep(pollIntervalMs);
    ({ status } = (await modern(2 + polls, "tasks/get", { taskId }, taskId)).result);
    if (status === "failed" || status === "cancelled") throw new Error(`the task ended ${status}`);
  }
  const taskObjects = await newObjects(before);
  const taskShares = homeDelta(before, await meter());

  const constructed = await meter();
  await sleep(IDLE_MS);
  await modern(100, "tasks/get", { taskId }, taskId);
  // Wake both with one more call each: an object constructed again had been evicted while idle.
  await post(endpoint, call(100, "wake"));
  await legacyEvents.nextMessage();
  await (await post(MCP, call(100, "wake"), sdk)).text();
  const woken = await meter();
  const evicted = (ids) => ids.every((id) => woken[id].constructed > constructed[id].constructed);
  shapes.b = { objects: legacyObjects, sessions: 1, callsPerSession: CALLS + 1, hibernated: evicted(legacyObjects), shares: legacyShares };
  shapes.c = { objects: sdkObjects, sessions: 1, callsPerSession: CALLS + 1, hibernated: evicted(sdkObjects), shares: sdkShares };
  shapes.e = { objects: taskObjects, sessions: 1, callsPerSession: 1 + polls + 1, hibernated: evicted(taskObjects), shares: taskShares };
  await legacyEvents.cancel();
  await standaloneEvents.cancel();

  // (d) 2026-07-28: no session, no object.
  before = await meter();
  for (let id = 1; id <= CALLS; id++) await modern(id, "tools/call", { name: "toUpperCase", arguments: { input: "modern" } }, "toUpperCase");
  shapes.d = { objects: await newObjects(before), sessions: 1, callsPerSession: CALLS, shares: homeDelta(before, await meter()) };

  // (f) user state, in the second Worker: 10 calls writing and reading the user's notes, idle, then a last read.
  const userBefore = await userMeter();
  for (let i = 0; i < CALLS; i++) {
    const args = i % 2 === 0 ? { action: "add", text: `note ${i}` } : { action: "list" };
    await signedIn(i, "tools/call", { name: "notepad", arguments: args }, "notepad");
  }
  const userObjects = Object.keys(await userMeter()).filter((id) => !(id in userBefore));
  const userConstructed = await userMeter();
  await sleep(IDLE_MS);
  await signedIn(100, "tools/call", { name: "notepad", arguments: { action: "list" } }, "notepad");
  const userWoken = await userMeter();
  shapes.f = { objects: userObjects, sessions: 1, callsPerSession: CALLS + 1, hibernated: userObjects.every((id) => userWoken[id].constructed > userConstructed[id].constructed), user: true };

  // After the TTL (a deadline lies 1–1.5 TTL after the last activity; the task, created more than
  // IDLE_MS before, expires sooner still): what is left?
  // The user's home, last used during the last read, is deleted RETENTION_MS after it (its alarm was
  // armed at its creation: it re-arms once, at the last use plus the retention).
  await sleep(Math.max(KEEPALIVE_MS + TTL_MS * 1.5 + 5_000, RETENTION_MS + 5_000));
  const final = { ...(await meter()), ...(await userMeter()) };
  const left = { ...(await (await fetch(`${server.url}/__meter/keys`)).json()), ...(await (await fetch(`${userServer.url}/__meter/keys`)).json()) };

  const rows = [];
  for (const [name, shape] of Object.entries(shapes)) {
    const sum = { ...(shape.shares ?? Object.fromEntries(COUNTED.map((key) => [key, 0]))) };
    for (const id of shape.objects) for (const key of COUNTED) sum[key] += final[id][key];
    const per = (value) => value / shape.sessions;
    // An alarm that comes due is billed as a request.
    const requests = per(sum.requests + sum.alarms + sum.socketMessages / 20);
    const dollarsPerMillion = requests * PRICE.perMillionRequests + per(sum.rowsRead) * PRICE.perMillionRowsRead + per(sum.rowsWritten) * PRICE.perMillionRowsWritten;
    const keysLeft = shape.objects.reduce((n, id) => n + (left[id]?.length ?? 0), 0);
    rows.push({
      shape: name,
      "calls/session": shape.callsPerSession,
      "requests/session": +requests.toFixed(2),
      "rows read": +per(sum.rowsRead).toFixed(1),
      "rows written": +per(sum.rowsWritten).toFixed(1),
      alarms: +per(sum.alarms).toFixed(1),
      "idle resident": shape.hibernated === undefined ? "—" : shape.hibernated ? "no" : "yes",
      "ended by TTL": shape.objects.length === 0 ? "—" : shape.objects.every((id) => final[id].wiped) ? (shape.user ? "yes (retention)" : "yes") : "no",
      "keys left": keysLeft,
      "$ per million sessions": +dollarsPerMillion.toFixed(2),
    });
  }
  console.table(rows);
  // The anonymous client's home: its fair shares after the shapes (lapsed holdings swept by its alarm).
  const homes = Object.entries(final).filter(([id, m]) => m.kind === "home" && !shapes.f.objects.includes(id));
  const after = homes.reduce((sum, [id, m]) => ({ alarms: sum.alarms + m.alarms, keys: sum.keys + (left[id]?.length ?? 0) }), { alarms: 0, keys: 0 });
  console.log(`Fair shares: ${homes.length} client home(s) counted the sessions and tasks above (their cost during each shape is in its row); after, ${after.alarms} alarm(s) swept lapsed shares, and ${after.keys} key(s) are left.`);
  const idleHour = OBJECT_GB * 3_600 * PRICE.perMillionGbSeconds;
  console.log(`An object resident through one idle hour would add $${idleHour.toFixed(2)} per million session-hours (${OBJECT_GB} GB × 3,600 s at $${PRICE.perMillionGbSeconds} per million GB-s).`);
} finally {
  await server.dispose();
  await userServer.dispose();
  await nws.close();
}
