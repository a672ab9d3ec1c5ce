/**
 * `npm run bench:stores`: one definition (`node/storesServer.ts`) served three ways, each a child
 * process on 127.0.0.1, in one run:
 * - `serveNode` with state in memory: the baseline every ratio is taken against;
 * - `serveNode` on PostgreSQL (`--store`), on a cluster this script starts in a temporary
 *   directory (`benchCluster.mjs`) and stops at the end, whatever happens;
 * - a Worker with its Durable Objects on bare workerd (`storesWorker.ts`, objects on disk).
 *
 * Three modes: a 2026-07-28 call of a stateless tool (`shout`); a 2025 session's call (Streamable
 * HTTP, each client initializes once, then calls with its session id); a 2026-07-28 call of a
 * handle's tool (`jot`: a write to the handle's home and a read back, per call; each client opens
 * its pad once). CLIENTS clients call at once, each on its own keep-alive connection, and every
 * answer is checked. Printed per server: calls/s; CPU per call of the server process, all its
 * threads (`/proc/<pid>/task/<tid>/schedstat`), and on PostgreSQL also of the database's own
 * processes (the postmaster and its backends); statements per call, from pg_stat_statements:
 * the delta of `sum(calls)` of the server's own role in its database, around each run (this
 * script reads as another role, so its reads are not counted; BEGIN and COMMIT count as
 * statements, a COMMIT for each BEGIN, since the view misses most of the COMMITs the driver
 * sends as prepared statements). Background work counts too: the task host's polls and the
 * sweeps, a few statements a second. Each server gets a discarded warm-up run, then the servers
 * take turns in rounds, the order rotating every round; ratios to Node in memory are taken per
 * round and printed as their median and range.
 *
 * Then what ends leaves nothing: a server on a database of its own, behind sign-in (tokens of
 * an issuer this script makes), with lifetimes of seconds (SESSION_IDLE_TTL_MS,
 * HOME_RETENTION_MS, TASK_TTL_MS), sees a session ended by its client (DELETE), a session left
 * idle, a user's home and a handle's home left unused and a task run to its end; the rows
 * of each `mcp_` table (the version table, `mcp_schema`, aside) are printed while they live, once
 * their lifetimes are over, and once the server has stopped (a process may keep rows of its own
 * while it runs). Exit code 1 if any are left at the end, naming the tables.
 *
 * Environment: BENCH_CALLS (calls per run, default 2000), BENCH_ROUNDS (5), BENCH_CLIENTS (8),
 * BENCH_SECONDS (180: no round starts after it; the row check comes on top, at most
 * CHECK_SECONDS), BENCH_STATEMENTS (any value: also prints the statements the PostgreSQL server
 * sent most often over the whole run, warm-ups included).
 */
import { Agent, request } from "node:http";
import { readdirSync, readFileSync } from "node:fs";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import postgres from "postgres";
import { bundleNodeEntry } from "../startNodeServer.mjs";
import { startServingProcess } from "../startServingProcess.mjs";
import { startWorkerd } from "../startWorkerd.mjs";
import { wranglerConfig } from "../wranglerConfig.mjs";
import { startBenchCluster } from "./benchCluster.mjs";
import { answerOf, cpuNs, range } from "./measures.mjs";
import { postJson } from "./postJson.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 180);
const STATEMENTS = process.env.BENCH_STATEMENTS;
/** Statements BENCH_STATEMENTS prints. */
const TOP_STATEMENTS = 16;
/** Calls of each warm-up run. */
const WARM_UP_CALLS = Math.min(CALLS, 500);
/** The row check's lifetimes, short so that they end within the run. */
const CHECK_LIFETIMES = { SESSION_IDLE_TTL_MS: "1500", HOME_RETENTION_MS: "1500", TASK_TTL_MS: "1500" };
/** How long the row check waits for the rows to go, once every lifetime is over, in seconds. */
const CHECK_SECONDS = 30;
/** How long the row check's counts must stay the same, once every lifetime is over, to be taken as settled, in milliseconds. */
const STEADY_MS = 3_000;
/** How often the row check counts the rows again, in milliseconds. */
const CHECK_POLL_MS = 250;

const DEFINITION = "scripts/bench/node/storesServer.ts";
/** The row check's server: the same definition behind sign-in. */
const SIGNED_IN = "scripts/bench/node/storesSignedIn.ts";
/** The row check's token issuer: only a name, its keys made for the run. */
const ISSUER = "https://issuer.bench.invalid";
const MODERN = "2026-07-28";
const MODERN_META = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
const TASKS_META = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } };
const ACCEPT = "application/json, text/event-stream";
/** The role the PostgreSQL server connects as: its statements are the ones counted. */
const SERVER_ROLE = "mcp_bench";
/** The database the benchmark's PostgreSQL server keeps its state in. */
const BENCH_DB = "bench";

/** `pid` and its children: the postmaster and the backends it forked. */
function processTree(pid) {
  const children = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The parent is the second field after the command, which is in parentheses and may hold spaces.
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) children.push(Number(entry));
    } catch {
      // the process ended between listing and reading
    }
  }
  return [pid, ...children];
}

/** CPU of each process of a tree, by pid: a backend that ends during a run loses its share, so runs keep their connections open. */
const treeCpu = (pid) => new Map(processTree(pid).map((p) => [p, cpuNs(p)]));
const treeDeltaNs = (before, after) => [...after].reduce((sum, [pid, ns]) => sum + ns - (before.get(pid) ?? 0), 0);

const post = (agent, url, headers, body) => postJson(agent, url, { accept: ACCEPT, ...headers }, body);

/** The text of the tool result answering `id`, or an error naming what came instead. */
function resultText(response, id) {
  const message = response.status === 200 ? answerOf(response.text, id) : undefined;
  const text = message?.result?.isError ? undefined : message?.result?.content?.[0]?.text;
  if (typeof text !== "string") throw new Error(`tools/call ${id} answered ${response.status}: ${response.text.slice(0, 300)}`);
  return text;
}

const modernCall = (id, name, args, meta = MODERN_META) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta } });
const modernHeaders = (method, name) => ({ "mcp-protocol-version": MODERN, "mcp-method": method, ...(name ? { "mcp-name": name } : {}) });

/** A 2025 Streamable HTTP session on `agent`: its headers (`signedIn`'s among them), once initialized. */
async function openSession(agent, url, signedIn = {}) {
  const init = await post(agent, url, signedIn, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }));
  const session = init.headers["mcp-session-id"];
  if (init.status !== 200 || !session) throw new Error(`initialize answered ${init.status}: ${init.text.slice(0, 300)}`);
  const headers = { ...signedIn, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  const initialized = await post(agent, url, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}: ${initialized.text.slice(0, 300)}`);
  return headers;
}

/** Ends a 2025 session as its client does: DELETE with its id. */
function deleteSession(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "DELETE", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 || res.statusCode === 204 ? resolve() : reject(new Error(`DELETE of session ${headers["mcp-session-id"]} answered ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A client of `base` in `mode`: its own connection, `call()` for one checked call, `close()` (a session's client ends it). */
async function openClient(base, mode) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = `${base}/mcp`;
  let id = 0;
  const next = () => {
    const n = ++id;
    return { n, text: `bench ${n}` };
  };
  const expect = (got, want, n) => {
    if (got !== want) throw new Error(`tools/call ${n} answered ${JSON.stringify(got.slice(0, 200))}, not ${JSON.stringify(want)}`);
  };
  if (mode === "stateless") {
    const headers = modernHeaders("tools/call", "shout");
    return {
      async call() {
        const { n, text } = next();
        expect(resultText(await post(agent, url, headers, modernCall(n, "shout", { text })), n), text.toUpperCase(), n);
      },
      close: async () => agent.destroy(),
    };
  }
  if (mode === "handle") {
    const headers = modernHeaders("tools/call", "jot");
    const opened = resultText(await post(agent, url, headers, modernCall(0, "jot", { text: "open" })), 0);
    const pad = /^OPEN ([0-9a-f]{32})$/.exec(opened)?.[1];
    if (!pad) throw new Error(`opening a pad answered ${JSON.stringify(opened.slice(0, 200))}`);
    return {
      async call() {
        const { n, text } = next();
        expect(resultText(await post(agent, url, headers, modernCall(n, "jot", { pad, text })), n), `${text.toUpperCase()} ${pad}`, n);
      },
      close: async () => agent.destroy(),
    };
  }
  const headers = await openSession(agent, url);
  return {
    async call() {
      const { n, text } = next();
      const body = JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "shout", arguments: { text } } });
      expect(resultText(await post(agent, url, headers, body), n), text.toUpperCase(), n);
    },
    async close() {
      await deleteSession(agent, url, headers);
      agent.destroy();
    },
  };
}

/** Statements the server's role has sent in its database so far (`sum(calls)` of pg_stat_statements, else transactions committed). */
async function statementsSoFar(admin, counting) {
  if (counting === "statements") {
    // A transaction's end is counted once per BEGIN: the view misses most of the driver's COMMITs (sent as prepared statements).
    const [row] = await admin`
      SELECT coalesce(sum(s.calls), 0)::bigint AS n,
             coalesce(sum(s.calls) FILTER (WHERE s.query ~* '^\\s*begin'), 0)::bigint AS begun,
             coalesce(sum(s.calls) FILTER (WHERE s.query ~* '^\\s*(commit|rollback)'), 0)::bigint AS ended
      FROM pg_stat_statements s
      WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = ${BENCH_DB}) AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = ${SERVER_ROLE})`;
    return Number(row.n) + Math.max(0, Number(row.begun) - Number(row.ended));
  }
  // Without pg_stat_statements: transactions, every connection's (this script's own reads are not in that database).
  const [row] = await admin`SELECT pg_stat_get_db_xact_commit(oid)::bigint AS n FROM pg_database WHERE datname = ${BENCH_DB}`;
  return Number(row.n);
}

/** `calls` calls shared among `clients`, all at once: the wall time, the server's CPU, and on PostgreSQL the database's CPU and statements. */
async function run(server, clients, calls) {
  let left = calls;
  const cpuBefore = cpuNs(server.pid);
  const dbBefore = server.db ? treeCpu(server.db.postmasterPid()) : undefined;
  const queriesBefore = server.db ? await server.db.statements() : undefined;
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
  const result = { callsPerSecond: calls / seconds, cpuUsPerCall: (cpuNs(server.pid) - cpuBefore) / 1e3 / calls };
  if (server.db) {
    result.dbCpuUsPerCall = treeDeltaNs(dbBefore, treeCpu(server.db.postmasterPid())) / 1e3 / calls;
    result.queriesPerCall = ((await server.db.statements()) - queriesBefore) / calls;
  }
  return result;
}

/** Makes `name`, a database owned by the server's role: its URL, as that role. */
async function makeDatabase(admin, cluster, name) {
  await admin.unsafe(`CREATE DATABASE ${name} OWNER ${SERVER_ROLE}`);
  return `postgres://${SERVER_ROLE}@127.0.0.1:${cluster.port}/${name}`;
}

/** `serveNode` serving the bundle, in memory or on the store `store`, with `vars` over wrangler.toml's. */
function startNode(bundled, { store, vars = {} } = {}) {
  const env = { ...process.env, ...wranglerConfig().vars, LOG_LEVEL: "error", NO_COLOR: "1", DATABASE_URL: "", ...vars };
  return startServingProcess({ command: [process.execPath, bundled.outfile, "--port", "0", ...(store ? ["--store", store] : [])], env, runtime: "node" });
}

const MODES = [
  { mode: "stateless", title: `${MODERN}, a stateless tool (shout)` },
  { mode: "session", title: "2025 session (Streamable HTTP, session id), a stateless tool (shout)" },
  { mode: "handle", title: `${MODERN}, a handle's tool (jot: a write and a read of its home per call)` },
];

const cluster = await startBenchCluster();
const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
const bundled = await bundleNodeEntry({ definition: DEFINITION });
const started = {};
let exitCode = 0;
try {
  await admin.unsafe(`CREATE ROLE ${SERVER_ROLE} LOGIN`);
  const benchUrl = await makeDatabase(admin, cluster, BENCH_DB);
  let counting = "transactions";
  if (cluster.statements) {
    // In this script's own database: the view shows every database's statements, and the server's sees none of it.
    counting = await admin`CREATE EXTENSION pg_stat_statements`.then(
      () => "statements",
      (error) => (console.log(`pg_stat_statements is preloaded but cannot be created (${error.message})`), "transactions"),
    );
  }
  console.log(`durable-mcp store benchmark — node ${process.version}, ${new Date().toISOString()}`);
  console.log(
    counting === "statements"
      ? "queries/call: statements the PostgreSQL server's role sent (pg_stat_statements; BEGIN and COMMIT included, a COMMIT counted for each BEGIN)"
      : "queries/call: pg_stat_statements is not available here, so this counts transactions committed in the database (pg_stat_database.xact_commit), not statements",
  );

  const [memory, onPostgres, workerd] = await Promise.all([
    startNode(bundled),
    startNode(bundled, { store: benchUrl }),
    startWorkerd({ entry: "scripts/bench/storesWorker.ts", vars: { LOG_LEVEL: "error" }, onDisk: true }),
  ]);
  Object.assign(started, { "node memory": memory, "node postgres": onPostgres, workerd });
  onPostgres.db = { postmasterPid: cluster.postmasterPid, statements: () => statementsSoFar(admin, counting) };
  const names = Object.keys(started);
  const deadline = Date.now() + MAX_SECONDS * 1000;

  for (const { mode, title } of MODES) {
    const clients = {};
    for (const name of names) {
      clients[name] = await Promise.all(Array.from({ length: CLIENTS }, () => openClient(started[name].url, mode)));
      await run(started[name], clients[name], WARM_UP_CALLS);
    }
    const results = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS && (round === 0 || Date.now() < deadline); round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) results[name].push(await run(started[name], clients[name], CALLS));
    }
    for (const name of names) await Promise.all(clients[name].map((client) => client.close()));
    const base = results["node memory"];
    console.log(`\n${title}: ${base.length} rounds of ${CALLS} calls, ${CLIENTS} clients at once`);
    console.log(
      `${"server".padEnd(15)}${"calls/s".padEnd(20)}${"CPU µs/call".padEnd(20)}${"db CPU µs/call".padEnd(20)}${"queries/call".padEnd(20)}${"calls/s vs memory".padEnd(22)}CPU/call vs memory`,
    );
    for (const name of names) {
      const mine = results[name];
      const ratio = (key) => range(mine.map((r, i) => r[key] / base[i][key]), 2) + "x";
      const db = (key, digits) => (mine[0][key] === undefined ? "—" : range(mine.map((r) => r[key]), digits));
      console.log(
        `${name.padEnd(15)}${range(mine.map((r) => r.callsPerSecond), 0).padEnd(20)}${range(mine.map((r) => r.cpuUsPerCall), 0).padEnd(20)}${db("dbCpuUsPerCall", 0).padEnd(20)}${db("queriesPerCall", 2).padEnd(20)}${ratio("callsPerSecond").padEnd(22)}${ratio("cpuUsPerCall")}`,
      );
    }
  }
  await Promise.all(Object.values(started).map((server) => server.dispose()));
  for (const name of Object.keys(started)) delete started[name];
  if (STATEMENTS && counting === "statements") await printStatements(admin);

  exitCode = await checkRowsLeft(admin, cluster);
} finally {
  await Promise.all(Object.values(started).map((server) => server.dispose()));
  await admin.end();
  bundled.remove();
  await cluster.stop();
}
process.exitCode = exitCode;

/** The statements the server's role sent most often in the benchmark's database, each with its count. */
async function printStatements(admin) {
  const rows = await admin`
    SELECT s.calls::bigint AS calls, regexp_replace(s.query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements s
    WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = ${BENCH_DB}) AND s.userid = (SELECT oid FROM pg_roles WHERE rolname = ${SERVER_ROLE})
    ORDER BY s.calls DESC LIMIT ${TOP_STATEMENTS}`;
  console.log(`\nThe ${rows.length} statements Node on PostgreSQL sent most often (whole run):`);
  for (const row of rows) console.log(`${String(row.calls).padStart(10)}  ${row.query.slice(0, 160)}`);
}

/**
 * A server on a database of its own, behind sign-in, with lifetimes of seconds: a session ended
 * by DELETE, one left idle, a user's home and a handle's home left unused, and a task run to
 * completion, each by a user of its own; the rows of every `mcp_`
 * table but the version table, printed while they live, once their lifetimes are over and once
 * the server has stopped. 1 if any are left then.
 */
async function checkRowsLeft(admin, cluster) {
  const url = await makeDatabase(admin, cluster, "mcp_check");
  const issuer = await testIssuer();
  const signedIn = await bundleNodeEntry({ main: SIGNED_IN });
  const server = await startNode(signedIn, { store: url, vars: { ...CHECK_LIFETIMES, JWT_ISSUER: issuer.issuer, JWT_KEYS: issuer.jwks } }).finally(() => signedIn.remove());
  const db = postgres(cluster.url.replace(/\/postgres$/, "/mcp_check"), { max: 1, onnotice: () => {} });
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const endpoint = `${server.url}/mcp`;
    const as = async (subject) => ({ authorization: `Bearer ${await issuer.sign(subject, endpoint)}` });
    const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map(as));
    // Carol's sessions and task; alice's home; bob's handle, whose fair share his home holds.
    const ended = await openSession(agent, endpoint, carol);
    await deleteSession(agent, endpoint, ended);
    await openSession(agent, endpoint, carol);
    const remembered = resultText(await post(agent, endpoint, { ...alice, ...modernHeaders("tools/call", "remember") }, modernCall(1, "remember", { text: "mine" })), 1);
    if (remembered !== "MINE") throw new Error(`remember answered ${JSON.stringify(remembered)}`);
    const opened = resultText(await post(agent, endpoint, { ...bob, ...modernHeaders("tools/call", "jot") }, modernCall(2, "jot", { text: "kept" })), 2);
    if (!/^KEPT [0-9a-f]{32}$/.test(opened)) throw new Error(`jot answered ${JSON.stringify(opened)}`);
    const created = answerOf((await post(agent, endpoint, { ...carol, ...modernHeaders("tools/call", "job") }, modernCall(3, "job", { text: "done" }, TASKS_META))).text, 3)?.result;
    if (created?.resultType !== "task" || !created.taskId) throw new Error(`job as a task answered ${JSON.stringify(created)}`);
    const seen = await until(async () => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId: created.taskId, _meta: TASKS_META } });
      const task = answerOf((await post(agent, endpoint, { ...carol, ...modernHeaders("tasks/get", created.taskId) }, body)).text, 4);
      return task?.result?.status === "completed" ? task.result : undefined;
    });
    if (seen?.result?.content?.[0]?.text !== "DONE") throw new Error(`the task ended as ${JSON.stringify(seen)}`);
    const tables = await db`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'mcp\\_%' AND tablename <> 'mcp_schema' ORDER BY tablename`;
    const count = async () => {
      const counts = {};
      for (const { tablename } of tables) counts[tablename] = Number((await db`SELECT count(*)::int AS n FROM ${db(tablename)}`)[0].n);
      return counts;
    };
    const during = await count();
    agent.destroy();
    // Settled: nothing left, or nothing changing any more once every lifetime is over (a live
    // process may keep rows of its own while it runs, which its stop must take away).
    const longest = Math.max(...Object.values(CHECK_LIFETIMES).map(Number));
    const over = Date.now() + longest;
    let settled = during;
    let steadySince = Date.now();
    await until(async () => {
      const now = await count();
      if (JSON.stringify(now) !== JSON.stringify(settled)) steadySince = Date.now();
      settled = now;
      const empty = Object.values(now).every((n) => n === 0);
      return empty || (Date.now() > over && Date.now() - steadySince >= STEADY_MS) || undefined;
    }, CHECK_SECONDS * 1000 + longest);
    await server.dispose();
    const stopped = await count();
    const left = Object.entries(stopped).filter(([, n]) => n > 0);
    console.log(`\nWhat ends leaves nothing (Node on PostgreSQL, lifetimes ${Object.entries(CHECK_LIFETIMES).map(([k, v]) => `${k}=${v}`).join(", ")}):`);
    console.log("signed in: carol's session ended by DELETE, her session left idle and her task run to completion; alice's home and bob's handle, left unused");
    console.log(`${"table".padEnd(24)}${"while alive".padEnd(14)}${"once ended".padEnd(14)}server stopped`);
    for (const table of Object.keys(stopped)) console.log(`${table.padEnd(24)}${String(during[table]).padEnd(14)}${String(settled[table]).padEnd(14)}${stopped[table]}`);
    if (left.length === 0) {
      console.log("0 rows left in every table");
      return 0;
    }
    if (stopped.mcp_homes > 0) {
      const homes = await db`
        SELECT h.id, (SELECT count(*) FROM mcp_home_entries e WHERE e.owner = h.id)::int AS entries, round(extract(epoch FROM h.wake_at - now()))::int AS wakes_in_s
        FROM mcp_homes h ORDER BY h.id`;
      // A home's name is its kind, then its digest or id: the kind says whose it is.
      for (const home of homes) console.log(`  mcp_homes ${home.id.split(":").slice(0, -1).join(":") || home.id}:…: ${home.entries} entries, wakes in ${home.wakes_in_s} s`);
    }
    if (stopped.mcp_shares > 0) {
      const shares = await db`SELECT resource, round(extract(epoch FROM until - now()))::int AS lapses_in_s FROM mcp_shares ORDER BY resource`;
      for (const share of shares) console.log(`  mcp_shares ${share.resource}: lapses in ${share.lapses_in_s ?? "never"} s`);
    }
    console.log(`rows left in: ${left.map(([table, n]) => `${table} (${n})`).join(", ")}`);
    return 1;
  } finally {
    await db.end();
    await server.dispose();
  }
}

/** A JWT issuer of this run's own: its public keys as a JWK Set (JSON), and `sign(subject, audience)` for an access token. */
async function testIssuer() {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "bench", alg: "ES256" }] });
  return {
    issuer: ISSUER,
    jwks,
    sign: (subject, audience) =>
      new SignJWT({ scope: "mcp" }).setProtectedHeader({ alg: "ES256", kid: "bench", typ: "at+jwt" }).setIssuer(ISSUER).setSubject(subject).setAudience(audience).setIssuedAt().setExpirationTime("5m").sign(pair.privateKey),
  };
}

/** Calls `probe` every CHECK_POLL_MS until it returns something, at most `withinMs`; its last answer (undefined: never). */
async function until(probe, withinMs = 20_000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined || Date.now() > deadline) return got;
    await new Promise((resolve) => setTimeout(resolve, CHECK_POLL_MS));
  }
}
