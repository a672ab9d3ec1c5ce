/**
 * Three test layers, one `npm test` (test/README.md lists every project):
 * - unit:    pure logic beside its source (`shared/**\/*.test.ts`), in Node;
 * - runtime: the Worker and its Durable Objects inside real workerd (@cloudflare/vitest-pool-workers);
 * - e2e:     the example server on each runtime, driven over real HTTP by the official MCP SDK
 *            clients and raw requests (`test/e2e`: the contract suite).
 */
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { sourceAliases } from "./scripts/sourceAliases.mjs";

/** `durable-mcp` and its subpaths, from source: tests import the package as its users do. */
const aliasesOf = (aliases: Record<string, string>) => ({ alias: Object.entries(aliases).map(([name, path]) => ({ find: new RegExp(`^${name}$`), replacement: path })) });
const resolve = aliasesOf(sourceAliases());
/** Inside workerd, the entries' Workers variants (the `workerd` export condition), as wrangler resolves an installed package. */
const workersResolve = aliasesOf(sourceAliases("workerd"));

export default defineConfig({
  test: {
    projects: [
      { resolve, test: { name: "unit", include: ["shared/**/*.test.ts", "capabilities/**/*.test.ts", "example/**/*.test.ts", "test/unit/**/*.test.ts", "create/template/**/*.test.ts"], environment: "node" } },
      // Size budgets: wrangler bundles the Workers as it would deploy them; and the packed package, installed.
      { test: { name: "bundle", include: ["test/bundle/**/*.test.ts", "test/pack/**/*.test.ts"], environment: "node", testTimeout: 120_000 } },
      // npm create durable-mcp from its packed tarball, offline: the new project installed, tested, served, built and type-checked.
      { test: { name: "create", include: ["test/create/**/*.test.ts"], environment: "node", testTimeout: 120_000, hookTimeout: 300_000 } },
      {
        resolve: workersResolve,
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // The production routes and Durable Object class, serving the example tools plus probes.
            main: "./test/runtime/testWorker.ts",
            miniflare: {
              // Small limits so the runtime tests reach them quickly; the defaults are tested in unit tests.
              // A short keepalive also bounds how soon a vanished client is noticed: workerd reports a
              // cancelled stream to the Durable Object only at its next write.
              bindings: { LOG_LEVEL: "error", MAX_QUEUE_MESSAGES: "20", MAX_QUEUE_BYTES: "65536", HANDLER_TIMEOUT_MS: "2000", MAX_CONCURRENT_HANDLERS: "4", SESSION_IDLE_TTL_MS: "3000", KEEPALIVE_INTERVAL_MS: "250" },
            },
          }),
        ],
        // Some tests wait out a deadline (3–4.5 s here) or push thousands of messages: a busy machine needs room past vitest's 5 s.
        test: { name: "runtime", include: ["test/runtime/**/*.test.ts"], exclude: ["test/runtime/homes/**"], testTimeout: 20_000 },
      },
      {
        resolve: workersResolve,
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // Homes need a signed-in user: a Worker of their own, behind authorization (homeWorker.ts).
            main: "./test/runtime/homes/homeWorker.ts",
            miniflare: {
              // Small bounds, so the tests reach them; a short handler deadline for the cancellation tests.
              bindings: {
                LOG_LEVEL: "error",
                HANDLER_TIMEOUT_MS: "5000",
                SESSION_IDLE_TTL_MS: "3000",
                KEEPALIVE_INTERVAL_MS: "250",
                MAX_HOME_KEYS: "20",
                MAX_HOME_BYTES: "65536",
                MAX_SESSIONS_PER_CLIENT: "3",
                MAX_TASKS_PER_CLIENT: "2",
                MAX_HANDLES_PER_CLIENT: "3",
              },
            },
          }),
        ],
        test: { name: "runtime-homes", include: ["test/runtime/homes/**/*.test.ts"], testTimeout: 20_000 },
      },
      {
        resolve,
        // The contract suite: the same end-to-end files against the Deno server (startServer reads RUNTIME).
        test: {
          name: "contract-deno",
          // One module graph per worker, not per file (the files share no global state; none mocks or stubs):
          // the SDKs and helpers are imported once, which halves the CPU these projects take on two cores.
          isolate: false,
          // test/deno: what only Deno has (tasks shared by processes on one KV file).
          include: ["test/e2e/**/*.test.ts", "test/deno/**/*.test.ts"],
          // rateLimitBinding: a Workers binding; checkBroken: the check's probes against proxies, the same whatever runtime
          // is behind them (check.test.ts runs here).
          exclude: ["test/e2e/stdio.test.ts", "test/e2e/nodeStdio.test.ts", "test/e2e/brokenDefinition.test.ts", "test/e2e/rateLimitBinding.test.ts", "test/e2e/checkBroken.test.ts"],
          environment: "node",
          env: { RUNTIME: "deno" },
          // Every server on a KV file of its own (test/deno/kvStoreSetup.ts), as a deployment on KV runs.
          globalSetup: ["./test/deno/kvStoreSetup.ts"],
          // Node 20's WebSocket client (for the SDK's WebSocketClientTransport) is behind a flag.
          execArgv: ["--experimental-websocket"],
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        resolve,
        // The contract suite again, against the Node server (`durable-mcp/node`, bundled by startNodeServer).
        test: {
          name: "contract-node",
          // As for contract-deno: one module graph per worker.
          isolate: false,
          // test/node: what only Node has (its request timeout and connections per address).
          include: ["test/e2e/**/*.test.ts", "test/node/**/*.test.ts"],
          // As for Deno, and: webSocket: its entry is Workers' and Deno's; oauthExample, serviceClients, enterpriseSignIn:
          // the example's authorization server keeps its grants in a KV namespace, which Node has no adapter for. The restart tests run on
          // PostgreSQL (a cluster of the run's own, test/node/postgresSetup.ts).
          exclude: [
            "test/e2e/stdio.test.ts",
            "test/e2e/nodeStdio.test.ts",
            "test/e2e/brokenDefinition.test.ts",
            "test/e2e/oauthExample.test.ts",
            "test/e2e/serviceClients.test.ts",
            "test/e2e/enterpriseSignIn.test.ts",
            "test/e2e/rateLimitBinding.test.ts",
            "test/e2e/checkBroken.test.ts",
            "test/e2e/webSocket.test.ts",
          ],
          environment: "node",
          env: { RUNTIME: "node" },
          globalSetup: ["./test/node/postgresSetup.ts"],
          // Node 20's WebSocket client (for the SDK's WebSocketClientTransport) is behind a flag.
          execArgv: ["--experimental-websocket"],
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        resolve,
        // The PostgreSQL store (postgres/) against a real cluster the run starts itself (initdb and pg_ctl, on loopback) and stops.
        test: { name: "postgres", include: ["test/postgres/**/*.test.ts"], globalSetup: ["./test/postgres/clusterSetup.ts"], environment: "node", testTimeout: 30_000, hookTimeout: 60_000 },
      },
      {
        resolve,
        // Hosts as people see them: headless Chromium (Debian's chromium) driven by playwright-core.
        test: { name: "browser", include: ["test/browser/**/*.test.ts"], environment: "node", testTimeout: 60_000, hookTimeout: 120_000 },
      },
      {
        resolve,
        test: {
          name: "e2e",
          // As for contract-deno: one module graph per worker.
          isolate: false,
          include: ["test/e2e/**/*.test.ts"],
          // absoluteTarget: workerd answers an absolute-form request target itself, before the Worker runs.
          exclude: ["test/e2e/absoluteTarget.test.ts"],
          environment: "node",
          execArgv: ["--experimental-websocket"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
