/**
 * Starts a Worker entry on bare workerd, with no miniflare in front of it: the benchmark's way
 * to measure the server and its floors without a proxy worker adding CPU to every request.
 * Bundles the entry with esbuild (as `startServer` does), writes a workerd config with the
 * bindings wrangler.toml declares (variables, Durable Object classes with in-memory storage),
 * and runs the `workerd` binary that wrangler and miniflare use, bound to 127.0.0.1.
 *
 * @example
 * const server = await startWorkerd({ entry: "scripts/bench/floorWorker.ts", objects: { FLOOR: "FloorObject" } });
 * await fetch(`${server.url}/health`);
 * await server.dispose();
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWorker } from "./bundleWorker.mjs";
import { wranglerConfig } from "./wranglerConfig.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const WORKERD = join(createRequire(import.meta.url).resolve("workerd/package.json"), "../bin/workerd");

/** A Cap'n Proto text literal. */
const text = (value) => JSON.stringify(String(value));

/**
 * @param {object} options
 * @param {string} options.entry  Worker entry, relative to the repository.
 * @param {Record<string, string>} [options.vars]  Overrides of wrangler.toml `[vars]`.
 * @param {Record<string, string>} [options.objects]  Durable Object bindings beyond wrangler.toml's, binding → class.
 * @param {boolean} [options.minify]  as deployed (default); false keeps names readable in a CPU profile
 * @param {number} [options.inspectorPort]  opens workerd's inspector (Chrome DevTools protocol) on 127.0.0.1
 * @param {number} [options.cpu]  pins workerd to this CPU (`taskset`), away from the client's
 * @param {boolean} [options.onDisk]  Durable Object storage in files (in the run's temporary directory) rather than in
 *   memory, where an evicted object (workerd evicts one idle for 10 s) would lose it
 * @param {boolean} [options.loopbackOnly]  the Worker's `fetch` reaches this machine's loopback services (a local stand-in
 *   for an upstream) and nothing else; by default workerd lets it reach public addresses only
 */
export async function startWorkerd({ entry, vars = {}, objects = {}, minify = true, inspectorPort, cpu, onDisk = false, loopbackOnly = false }) {
  const config = wranglerConfig();
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-workerd-"));
  await bundleWorker(join(ROOT, entry), join(dir, "worker.mjs"), { minify });
  if (onDisk) await mkdir(join(dir, "objects"));
  const classes = { ...Object.fromEntries(config.durable_objects.bindings.map((b) => [b.name, b.class_name])), ...objects };
  const bindings = [
    ...Object.entries({ ...config.vars, ...vars }).map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`),
    ...Object.entries(classes).map(([name, className]) => `(name = ${text(name)}, durableObjectNamespace = ${text(className)})`),
  ];
  const namespaces = [...new Set(Object.values(classes))].map((className) => `(className = ${text(className)}, uniqueKey = ${text(`bench-${className}`)}, enableSql = true)`);
  await writeFile(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)${onDisk ? `, (name = "objects", disk = (path = ${text(join(dir, "objects"))}, writable = true))` : ""}${loopbackOnly ? ', (name = "loopback", network = (allow = ["local"]))' : ""}],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = ${text(config.compatibility_date)},
  compatibilityFlags = [${(config.compatibility_flags ?? []).map(text).join(", ")}],
  bindings = [${bindings.join(", ")}],
  durableObjectNamespaces = [${namespaces.join(", ")}],
  durableObjectStorage = ${onDisk ? '(localDisk = "objects")' : "(inMemory = void)"},${loopbackOnly ? '\n  globalOutbound = "loopback",' : ""}
);
`,
  );
  const inspector = inspectorPort === undefined ? [] : [`--inspector-addr=127.0.0.1:${inspectorPort}`];
  const command = [WORKERD, "serve", join(dir, "config.capnp"), "--control-fd=3", ...inspector];
  if (cpu !== undefined) command.unshift("taskset", "-c", String(cpu));
  const child = spawn(command[0], command.slice(1), { stdio: ["ignore", "inherit", "inherit", "pipe"] });
  const port = await new Promise((resolvePort, reject) => {
    let lines = "";
    child.stdio[3].setEncoding("utf8");
    child.stdio[3].on("data", (chunk) => {
      lines += chunk;
      for (const line of lines.split("\n")) {
        const event = line.trim() ? JSON.parse(line) : undefined;
        if (event?.event === "listen" && event.socket === "http") resolvePort(event.port);
      }
    });
    child.on("exit", (code) => reject(new Error(`workerd exited with ${code} before serving`)));
  });
  // A signal handler of wrangler's may exit before `dispose` runs: workerd and the bundle go anyway.
  const cleanUp = () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", cleanUp);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    async dispose() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        // SIGTERM lets workerd drain open connections (a client's keep-alive ones never end on
        // their own); what is still running a moment later is killed.
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 2_000);
        await exited;
        clearTimeout(killer);
      }
      process.removeListener("exit", cleanUp);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
