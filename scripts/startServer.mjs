/**
 * Starts a Worker entry on workerd through miniflare's API, the way end-to-end tests and the
 * benchmark do: bundle the entry with esbuild, then give miniflare the bindings that
 * wrangler.toml declares (read with wrangler's own config reader, so there is one source of
 * truth). No `wrangler dev` proxy or inspector in the path, so figures measure the server.
 *
 * With `RUNTIME=deno` (or `node`) in the environment, the same call starts the entry's server
 * definition on Deno (`startDenoServer`) or Node (`startNodeServer`) instead: that is how the
 * contract suite runs one set of end-to-end tests against every runtime.
 *
 * By default the server's console goes to the test's, as miniflare prints workerd's output, less
 * workerd's report of a client that left (`clientLeftReport.mjs`). A test
 * whose server logs errors on purpose passes `captureLogs: true`: the lines are kept, not printed,
 * and `server.logs()` returns them for the test to assert on (a green run prints nothing).
 *
 * @example
 * const server = await startServer({ vars: { LOG_LEVEL: "error" } });
 * await fetch(`${server.url}/health`);
 * await server.dispose();
 */
import { createHash, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Log, LogLevel, Miniflare } from "miniflare";
import { bundleWorker } from "./bundleWorker.mjs";
import { clientLeftFilter } from "./clientLeftReport.mjs";
import { startDenoServer } from "./startDenoServer.mjs";
import { startNodeServer } from "./startNodeServer.mjs";
import { wranglerConfig } from "./wranglerConfig.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");

/**
 * What the other runtimes run for each Worker entry: the server definition it serves (the tests'
 * Deno entry `test/support/denoServer.ts`, `serveNode` on Node), or a runtime's entry of its own.
 */
const TWINS = {
  "example/worker.ts": { deno: { main: "example/deno.ts" }, node: { main: "example/node.ts" } },
  "test/conformance/fixtureWorker.ts": { definition: "test/conformance/fixtureServer.ts" },
  "test/runtime/testWorker.ts": { definition: "test/runtime/testServer.ts" },
  "example/webSocketWorker.ts": { deno: { main: "example/webSocketDeno.ts" } },
  "test/fixtures/auth/authWorker.ts": { deno: { main: "test/fixtures/auth/authDeno.ts" }, node: { main: "test/fixtures/auth/authNode.ts" } },
  "example/oauth/worker.ts": { deno: { main: "example/oauth/deno.ts" } },
  "test/fixtures/oauth/erasingWorker.ts": { deno: { main: "test/fixtures/oauth/erasingDeno.ts" } },
};

/** `{ definition }` or `{ main }` for `runtime`'s twin of `entry`. */
function twinOf(entry, runtime) {
  const twin = TWINS[entry];
  const spec = twin?.definition ? { definition: twin.definition } : twin?.[runtime];
  if (!spec) throw new Error(`No ${runtime} twin is known for ${entry}; add it to TWINS`);
  return spec;
}

/**
 * @param {object} [options]
 * @param {string} [options.entry]  Worker entry, relative to the repository (default: wrangler.toml `main`).
 * @param {number} [options.port]   0 (default) picks a free port.
 * @param {Record<string, string>} [options.vars]  Overrides of wrangler.toml `[vars]`.
 * @param {string} [options.persistDir]  Keep Durable Object storage (and KV namespaces) here across restarts.
 * @param {string} [options.config]  The wrangler config whose bindings to give (default: `wrangler.toml`); its KV
 *   namespaces and rate limits are simulated by miniflare (KV in memory, or in `persistDir`).
 * @param {string} [options.runtime]  "deno" or "node" for that twin (default: the `RUNTIME` environment variable).
 * @param {boolean} [options.captureLogs]  Keep the server's output lines instead of printing them (`logs()`).
 * @param {Record<string, string>} [options.outbound]  The server's outbound fetches to each origin named
 *   here (e.g. "https://idp.example.test") go to the loopback origin it maps to, path and query kept;
 *   every other outbound fetch is answered 502. So a test can serve, on loopback, what the server must
 *   reach over https, without changing the server's own network rules. Workerd (miniflare's outbound
 *   service) and Deno (`denoOutbound.ts`); not Node.
 * @returns {Promise<{ url: string, port: number, mf: Miniflare, logs(): string[], dispose(): Promise<void> }>}
 */
export async function startServer({ entry, port = 0, vars = {}, persistDir, config: configPath, runtime = process.env.RUNTIME, captureLogs = false, outbound } = {}) {
  const twinEntry = entry ?? "example/worker.ts";
  // On Deno, a KV file of `persistDir`'s own; and, where a run names a folder for them (DENO_STORE_DIR:
  // contract-deno), every server keeps its state in a KV file of its own there.
  if (runtime === "deno") {
    const kvPath = persistDir ? join(persistDir, "sessions.kv") : process.env.DENO_STORE_DIR ? join(process.env.DENO_STORE_DIR, `${randomUUID()}.kv`) : undefined;
    return startDenoServer({ ...twinOf(twinEntry, runtime), port, vars, kvPath, captureLogs, outbound });
  }
  // On Node, what outlives the process is kept in PostgreSQL: a database of `persistDir`'s own; and,
  // where a run has a cluster (NODE_STORE_SERVER_URL: contract-node, the referee), every server keeps its state there, in a database of its own.
  if (runtime === "node") {
    if (outbound) throw new Error("startServer: outbound routes are for workerd and Deno; a Node server fetches what it fetches");
    const store = persistDir ? await databaseOf(persistDir) : process.env.NODE_STORE_SERVER_URL ? await databaseOf(join(tmpdir(), `node-store-${randomUUID()}`)) : undefined;
    return startNodeServer({ ...twinOf(twinEntry, runtime), port, vars, captureLogs, store });
  }
  /** workerd's stdout and stderr lines (the Worker's console and workerd's own reports), when captured. */
  const lines = [];
  const keepLines = (stdout, stderr) => {
    for (const stream of [stdout, stderr]) createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => lines.push(line));
  };
  /** As miniflare prints them (stdout to console.log, stderr to console.error), less workerd's reports of clients that left. */
  const printLines = (stdout, stderr) => {
    for (const [stream, print] of [[stdout, console.log], [stderr, console.error]]) {
      const keep = clientLeftFilter();
      createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => keep(line) && print(line));
    }
  };
  const config = wranglerConfig(configPath);
  const outdir = await mkdtemp(join(tmpdir(), "durable-mcp-"));
  const scriptPath = join(outdir, "worker.mjs");
  await bundleWorker(entry ? join(ROOT, entry) : config.main, scriptPath);
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: outdir,
    // The machine may be offline: use miniflare's placeholder `request.cf` instead of fetching one.
    cf: false,
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    durableObjects: Object.fromEntries(
      config.durable_objects.bindings.map((b) => [b.name, { className: b.class_name, useSQLite: true }]),
    ),
    bindings: { ...config.vars, ...vars },
    kvNamespaces: config.kv_namespaces.map((namespace) => namespace.binding),
    kvPersist: persistDir ?? false,
    ...(outbound ? { outboundService: routeOutbound(outbound) } : {}),
    ratelimits: Object.fromEntries(config.ratelimits.map((r) => [r.name, { simple: r.simple }])),
    host: "127.0.0.1",
    port,
    durableObjectsPersist: persistDir ?? false,
    log: new Log(LogLevel.WARN),
    // workerd's `verbose` is off (miniflare's default); the client-left report is logged anyway, at error level.
    handleRuntimeStdio: captureLogs ? keepLines : printLines,
  });
  const url = (await mf.ready).origin;
  // A signal handler of wrangler's or miniflare's may exit before `dispose` runs: the bundle goes anyway.
  const removeBundle = () => rmSync(outdir, { recursive: true, force: true });
  process.once("exit", removeBundle);
  return {
    url,
    port: Number(new URL(url).port),
    runtime: "workerd",
    mf,
    logs() {
      if (!captureLogs) throw new Error("startServer: pass captureLogs: true to keep the server's lines");
      return [...lines];
    },
    async dispose() {
      await mf.dispose();
      process.removeListener("exit", removeBundle);
      await rm(outdir, { recursive: true, force: true });
    },
  };
}

/**
 * miniflare's outbound service for `startServer`'s `outbound`: a fetch to a mapped origin, sent on
 * to its loopback origin from this process; any other, refused.
 * @param {Record<string, string>} routes
 */
function routeOutbound(routes) {
  return async (request) => {
    const url = new URL(request.url);
    const target = routes[url.origin];
    if (!target) return new Response(`startServer: outbound fetch to ${url.origin} is not routed in this test`, { status: 502 });
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    return fetch(new URL(url.pathname + url.search, target), { method: request.method, headers: request.headers, body, redirect: "manual" });
  };
}

/**
 * The URL of the database that keeps a Node server's state for `persistDir`, made on first use on
 * the cluster named by `NODE_STORE_SERVER_URL` (the contract-node project's, test/node/postgresSetup.ts).
 * @param {string} persistDir
 * @returns {Promise<string>}
 */
async function databaseOf(persistDir) {
  const server = process.env.NODE_STORE_SERVER_URL;
  if (!server) throw new Error("A Node server keeps state across a restart in PostgreSQL only: set NODE_STORE_SERVER_URL to a cluster's URL (the contract-node project's setup starts one)");
  const name = `persist_${createHash("sha256").update(resolve(persistDir)).digest("hex").slice(0, 32)}`;
  const { default: postgres } = await import("postgres");
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (!found) await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.href;
}
