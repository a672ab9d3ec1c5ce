/**
 * `npm create durable-mcp`, as a newcomer runs it, from packed tarballs and offline: both
 * packages packed (durable-mcp's prepack builds dist/), create-durable-mcp run from its tarball
 * by `npm exec` (what `npm create` runs) with `--from` the durable-mcp tarball, the new project
 * installed with `npm install --offline`, then its own commands: `npm test`, `npm start`
 * (wrangler dev, its bundle unminified) reached by the official SDK v1 client over Streamable HTTP
 * and HTTP+SSE, `npm run deploy -- --dry-run` (minified), `wrangler types && tsc`, the Node, Deno and stdio entries, Node's
 * state in a PostgreSQL cluster of the test's own (`startCluster`) across a restart, and the
 * project's own `durable-mcp check` against what `npm start` serves. One project, every
 * runtime, made once for all the tests.
 *
 * Offline: npm's cache holds every tarball this repository's `npm ci` installed, but not the
 * registry documents a lockfile-less install resolves ranges with; the project gets a lockfile
 * cut from this repository's (subsetLockfile), the versions it pins being the repository's own
 * (test/unit/create/versions.test.ts).
 */
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSIONS } from "../../create/lib/versions.mjs";
import { freePort } from "../support/freePort.ts";
import { startCluster } from "../support/postgresCluster.ts";
import { type ServerProcess, startServerProcess } from "../support/startServerProcess.ts";
import { type Lockfile, subsetLockfile } from "../support/subsetLockfile.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
/** The project's tools, in the order its definition lists them. */
const TOOLS = ["countWords", "countPrimes"];

/**
 * What a person's shell would give the commands: this environment without npm's and vitest's own
 * variables (set for the process running this file), no color, no wrangler metrics.
 */
const ENV: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !/^(npm_|VITEST|NODE_ENV$)/.test(entry[0]))),
  WRANGLER_SEND_METRICS: "false",
  NO_COLOR: "1",
};

let work: string;
let project: string;
let durableTarball: string;
let createTarball: string;
/** The repository's untracked files before packing (a work in progress may have some). */
let untrackedBefore: string[];

/** `npm …` in a directory; resolves with its output, or rejects with it. */
const npmIn = (cwd: string, args: string[]) => run(npm, args, { cwd, env: ENV, maxBuffer: 16 * 1024 * 1024 });
/** create-durable-mcp from its tarball, as `npm create` runs it (npm exec), answering with its exit code and output. */
const createFromTarball = (cwd: string, args: string[]) =>
  npmIn(cwd, ["exec", "--offline", "--yes", "--package", createTarball, "--", "create-durable-mcp", ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

/** The repository's untracked files, but its node_modules link: `npm pack` must add none. */
async function untracked(): Promise<string[]> {
  const { stdout } = await run("git", ["status", "--porcelain", "--untracked-files=all", "--", ".", ":!node_modules"], { cwd: ROOT });
  return stdout.split("\n").filter((line) => line.startsWith("??"));
}

/**
 * Ends a server started by an npm script, and everything under it: SIGTERM to its process group
 * (npm passes a signal to its shell, and a shell running `a && b` does not pass it on), then
 * `stop()` waits for the group to go, killing what is left after a grace period.
 */
async function stopGroup(server: ServerProcess): Promise<void> {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    // Already gone.
  }
  await server.stop();
}

/** `npm pack` in a directory into `work`: the tarball's path. */
async function pack(directory: string): Promise<string> {
  const { stdout } = await npmIn(directory, ["pack", "--silent", "--pack-destination", work]);
  return join(work, stdout.trim().split("\n").pop()!);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "durable-mcp-create-"));
  untrackedBefore = await untracked();
  durableTarball = await pack(ROOT);
  createTarball = await pack(join(ROOT, "create"));
  project = join(work, "my-server");
  const created = await createFromTarball(work, [project, "--runtimes", "workers,node,deno,stdio", "--from", durableTarball, "--yes"]);
  if (created.code !== 0) throw new Error(`create-durable-mcp failed (${created.code}):\n${created.stdout}${created.stderr}`);
  const pkg = JSON.parse(await readFile(join(project, "package.json"), "utf8"));
  const lock = JSON.parse(await readFile(join(ROOT, "package-lock.json"), "utf8")) as Lockfile;
  const { dependencies } = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  await writeFile(join(project, "package-lock.json"), JSON.stringify(subsetLockfile(lock, pkg, Object.keys(dependencies)), null, 2));
  await npmIn(project, ["install", "--offline", "--no-audit", "--no-fund"]);
}, 300_000);

afterAll(async () => {
  if (createTarball) await forgetExec(createTarball);
  if (work) await rm(work, { recursive: true, force: true });
});

/** Removes what `npm exec --package TARBALL` installed in npm's exec cache (its `_npx` folder, beside the package cache). */
async function forgetExec(tarball: string): Promise<void> {
  const cache = (await npmIn(ROOT, ["config", "get", "cache"]).catch(() => ({ stdout: "" }))).stdout.trim();
  if (!cache) return;
  const execCache = join(cache, "_npx");
  for (const entry of await readdir(execCache).catch(() => [])) {
    const manifest = await readFile(join(execCache, entry, "package.json"), "utf8").catch(() => "{}");
    if ((JSON.parse(manifest) as { _npx?: { packages?: string[] } })._npx?.packages?.includes(tarball)) await rm(join(execCache, entry), { recursive: true, force: true });
  }
}

describe("npm create durable-mcp", () => {
  it("writes the project from the packed package, depending on the packed durable-mcp, and leaves the repository clean", async () => {
    const pkg = JSON.parse(await readFile(join(project, "package.json"), "utf8"));
    expect(pkg.name).toBe("my-server");
    expect(pkg.dependencies["durable-mcp"]).toBe(`file:${durableTarball}`);
    for (const file of ["src/server.ts", "src/server.test.ts", "src/worker.ts", "src/node.ts", "src/deno.ts", "src/stdio.ts", "wrangler.toml", "tsconfig.json", ".gitignore", "README.md"]) {
      expect((await stat(join(project, file))).isFile(), file).toBe(true);
    }
    const installed = JSON.parse(await readFile(join(project, "node_modules/durable-mcp/package.json"), "utf8"));
    expect(installed.version).toBe(JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).version);
    // Packing built dist/ (ignored) and wrote its tarballs elsewhere: nothing new to commit.
    expect(await untracked()).toEqual(untrackedBefore);
  });

  it("publishes (dry run) with no warning but the login one", async () => {
    const { stderr } = await npmIn(join(ROOT, "create"), ["publish", "--dry-run"]);
    expect(stderr.split("\n").filter((line) => line.startsWith("npm warn") && !/requires you to be logged in/.test(line))).toEqual([]);
    expect(stderr).toMatch(/create-durable-mcp@\d+\.\d+\.\d+/);
  });

  it("passes its own tests: npm test", async () => {
    const { stdout } = await npmIn(project, ["test"]);
    expect(stdout).toMatch(/Test Files\s+1 passed \(1\)/);
    expect(stdout).toMatch(/Tests\s+5 passed \(5\)/);
  });

  it("serves on workerd with npm start, to the SDK's client over Streamable HTTP (/mcp) and HTTP+SSE (/sse)", async () => {
    const port = await freePort();
    const server = await startServerProcess({ command: [npm, "start", "--", "--port", String(port)], cwd: project, env: ENV, url: `http://127.0.0.1:${port}` });
    try {
      const streamable = new Client({ name: "create-test", version: "1.0.0" });
      await streamable.connect(new StreamableHTTPClientTransport(new URL("/mcp", server.url)));
      expect((await streamable.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS);
      const counted = await streamable.callTool({ name: "countWords", arguments: { text: "from a new project" } });
      expect(counted.structuredContent).toEqual({ words: 4, characters: 18 });
      // Progress is asserted here only: the SDK v1 client runs a notification's handler a microtask
      // late and a response's at once, so over /sse, where one chunk may hold the notifications
      // and the result, it drops the progress that arrives with the result (the server sent it all, in order).
      const progress: number[] = [];
      const primes = await streamable.callTool({ name: "countPrimes", arguments: { upTo: 1000 } }, undefined, { onprogress: ({ progress: done }) => progress.push(done) });
      expect(primes.content).toEqual([{ type: "text", text: "There are 168 prime numbers up to 1000." }]);
      expect(progress).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
      await streamable.close();

      const sse = new Client({ name: "create-test", version: "1.0.0" });
      await sse.connect(new SSEClientTransport(new URL("/sse", server.url)));
      expect((await sse.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS);
      const overSse = await sse.callTool({ name: "countPrimes", arguments: { upTo: 100 } });
      expect(overSse.content).toEqual([{ type: "text", text: "There are 25 prime numbers up to 100." }]);
      await sse.close();

      // What wrangler dev runs is readable: a stack line names the function and a line of the source as written.
      const devDirs = (await readdir(join(project, ".wrangler/tmp"))).filter((name) => name.startsWith("dev-"));
      const devBundles = await Promise.all(devDirs.map((name) => readFile(join(project, ".wrangler/tmp", name, "worker.js"), "utf8").catch(() => "")));
      const devBundle = devBundles.find((text) => text.includes("countPrimes")) ?? "";
      expect(devBundle).toContain("// src/server.ts");
      expect(devBundle.split("\n").length).toBeGreaterThan(1000);

      // What hosts run before they accept it, from the project's own durable-mcp: nothing fails.
      const { stdout } = await npmIn(project, ["exec", "--offline", "--", "durable-mcp", "check", `${server.url}/mcp`]);
      expect(stdout).toMatch(/\n7 passed, 0 failed, 0 warnings, 1 skipped\nNot checked: calling tools\./);
    } finally {
      await stopGroup(server);
    }
  });

  it("builds for deployment: npm run deploy -- --dry-run, minified, with its Durable Objects bound", async () => {
    const { stdout } = await npmIn(project, ["run", "deploy", "--", "--dry-run", "--outdir", "out"]);
    expect(stdout).toMatch(/Total Upload: [\d.]+ KiB \/ gzip: [\d.]+ KiB/);
    expect(stdout).toContain("env.MCP_SESSION (McpSession)");
    expect(stdout).toContain("env.MCP_WATCH (McpWatch)");
    const bundle = await readFile(join(project, "out/worker.js"), "utf8");
    expect(bundle).toContain("countPrimes");
    // Minified: no file comments, and a few long lines rather than thousands.
    expect(bundle).not.toContain("// src/server.ts");
    expect(bundle.split("\n").length).toBeLessThan(100);
  });

  it("type-checks every entry: wrangler types, then tsc prints nothing", async () => {
    await npmIn(project, ["exec", "--offline", "--", "wrangler", "types"]);
    expect(await readFile(join(project, "worker-configuration.d.ts"), "utf8")).toContain('MCP_SESSION: DurableObjectNamespace<import("./src/worker").McpSession>');
    // tsc prints its errors on stdout and exits 2: shown whole when it fails.
    const checked = await npmIn(project, ["exec", "--offline", "--", "tsc", "--noEmit"]).catch((error: { stdout: string }) => error);
    expect(checked.stdout).toBe("");
  });

  it("serves on Node (npm run start:node) and on Deno (npm run start:deno): initialize, then a 2026-07-28 tools/call", async () => {
    for (const script of ["start:node", "start:deno"]) {
      const port = await freePort();
      const server = await startServerProcess({ command: [npm, "run", script, "--", "--port", String(port)], cwd: project, env: ENV, url: `http://127.0.0.1:${port}` });
      try {
        const post = (body: object, headers: Record<string, string>) =>
          fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });
        const initialized = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "create-test", version: "1" } } }, {});
        expect(initialized.status, script).toBe(200);
        expect(initialized.headers.get("mcp-session-id"), script).toBeTruthy();
        expect(await initialized.text(), script).toContain('"name":"my-server"');
        // The README's curl, as fetch.
        const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
        const called = await post(
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "countWords", arguments: { text: "hello world" }, _meta: meta } },
          { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "countWords" },
        );
        expect(called.status, script).toBe(200);
        expect(((await called.json()) as { result: { structuredContent: unknown } }).result.structuredContent, script).toEqual({ words: 2, characters: 11 });
      } finally {
        await stopGroup(server);
      }
    }
  });

  it("keeps a Node session in PostgreSQL across a restart: npm run start:node -- --store URL, then DATABASE_URL; in memory without either, and says so", async () => {
    expect(JSON.parse(await readFile(join(project, "node_modules/postgres/package.json"), "utf8")).version).toBe(VERSIONS.postgres);
    const cluster = await startCluster();
    const start = async (args: string[], env: Record<string, string>) => {
      const port = await freePort();
      return startServerProcess({ command: [npm, "run", "start:node", "--", "--port", String(port), ...args], cwd: project, env: { ...ENV, ...env }, url: `http://127.0.0.1:${port}` });
    };
    const inMemory = (server: ServerProcess) => server.printed().some((line) => line.text.includes("state is in memory and lost on restart"));
    const post = (server: ServerProcess, body: object, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });
    try {
      const memory = await start([], {});
      try {
        expect(inMemory(memory)).toBe(true);
      } finally {
        await stopGroup(memory);
      }

      const first = await start(["--store", cluster.url], {});
      let sessionId: string;
      try {
        expect(inMemory(first)).toBe(false);
        const initialized = await post(first, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "create-test", version: "1" } } });
        expect(initialized.status).toBe(200);
        sessionId = initialized.headers.get("mcp-session-id")!;
        expect(sessionId).toBeTruthy();
        const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
        expect((await post(first, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
      } finally {
        await stopGroup(first);
      }

      const second = await start([], { DATABASE_URL: cluster.url });
      try {
        expect(inMemory(second)).toBe(false);
        const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
        const called = await post(second, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "countWords", arguments: { text: "kept across a restart" } } }, headers);
        expect(called.status).toBe(200);
        expect(((await called.json()) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({ words: 4, characters: 21 });
      } finally {
        await stopGroup(second);
      }
    } finally {
      await cluster.stop();
    }
  });

  it("serves over stdio on Node (npm run --silent stdio): stdout carries MCP messages only", async () => {
    const child = spawn(npm, ["run", "--silent", "stdio"], { cwd: project, env: ENV, stdio: ["pipe", "pipe", "pipe"] });
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "create-test", version: "1" } } });
      expect(JSON.parse((await lines.next()).value).result.serverInfo.name).toBe("my-server");
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "countPrimes", arguments: { upTo: 10 } } });
      expect(JSON.parse((await lines.next()).value)).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "There are 4 prime numbers up to 10." }] } });
      child.stdin.end();
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill();
    }
  });

  it("refuses a directory that is not empty, and a runtime it does not know: exit 1, one sentence, no stack", async () => {
    const full = await createFromTarball(work, [project, "--yes"]);
    expect(full.code).toBe(1);
    expect(full.stderr).toContain(`create-durable-mcp: ${project} is not empty (`);
    expect(full.stderr).not.toMatch(/^\s+at /m);

    await mkdir(join(work, "empty"));
    const unknown = await createFromTarball(work, [join(work, "empty"), "--runtimes", "workers,bun"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('create-durable-mcp: Unknown runtime "bun": choose from workers, deno, node, stdio.');
    expect(unknown.stderr).not.toMatch(/^\s+at /m);

    const flag = await createFromTarball(work, [join(work, "empty"), "--runtime", "node"]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("create-durable-mcp: Unknown option '--runtime'.");
  });
});
