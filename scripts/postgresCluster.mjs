/**
 * A PostgreSQL cluster of its own for a test run, the referee or a benchmark, made by `initdb` in a temporary directory
 * and run by `pg_ctl` on 127.0.0.1 at a free port, with trust authentication on loopback only. As
 * root (PostgreSQL refuses to run as root) the directory is handed to the `postgres` user and the
 * programs run as it through `runuser`. `stop()` stops the server (`pg_ctl stop -m fast`) and
 * removes the directory; a process that exits without calling it stops the server at exit.
 * `restart()` takes the server down and up again, as a database's restart does to its clients.
 *
 * The programs come from PG_BINDIR, else `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/<version>/bin (Debian's layout). None there: `startCluster` rejects with the
 * sentence that says what to install; the tests do not skip.
 *
 * Not here: durability. The cluster runs with `fsync=off`: it lives as long as one test run.
 */
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createServer } from "node:net";

const run = promisify(execFile);
/** Ports tried before giving up: another process may take a free port before the server binds it. */
const MAX_PORT_ATTEMPTS = 3;
/** How long `pg_ctl start` waits for the server to accept connections, in seconds. */
const START_TIMEOUT_S = 60;

/**
 * @typedef {object} Cluster
 * @property {string} url The superuser's URL of the `postgres` database: `postgres://postgres@127.0.0.1:<port>/postgres`.
 * @property {number} port
 * @property {number} startMs From `initdb` to a server that accepts connections, in milliseconds.
 * @property {(downMs: number) => Promise<void>} restart Stops the server (`-m fast`: its connections are ended), leaves it down for `downMs`, and starts it again on the same port with its data.
 * @property {() => Promise<void>} stop Stops the server and removes its directory. Calling it again does nothing.
 * @property {() => number} postmasterPid The server's main process (for a benchmark that reads its CPU).
 */

/** Whether the server programs in `bin` come with `pg_stat_statements` (a benchmark counts statements with it). */
export function hasStatementStats(bin = postgresBinDir()) {
  const libDir = existsSync(join(bin, "pg_config")) ? execFileSync(join(bin, "pg_config"), ["--pkglibdir"], { encoding: "utf8" }).trim() : join(bin, "../lib");
  return existsSync(join(libDir, "pg_stat_statements.so"));
}

/**
 * The folder holding `initdb` and `pg_ctl`, the first of `candidates` that does.
 * @throws naming what to install, when there is none
 */
export function postgresBinDir(candidates = [process.env.PG_BINDIR, pgConfigBinDir(), ...debianBinDirs()].filter((dir) => !!dir)) {
  const found = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (!found) {
    throw new Error(
      `No PostgreSQL server programs (initdb, pg_ctl) found in ${candidates.join(", ") || "PG_BINDIR, pg_config --bindir or /usr/lib/postgresql/*/bin"}: install Debian's postgresql (apt-get install -y postgresql, as .ci/run does) or set PG_BINDIR to the folder holding them`,
    );
  }
  return found;
}

/**
 * Makes, starts and returns a cluster; see the module header.
 * @param {{ settings?: string[] }} [options] more `-c name=value` settings for the server (e.g. `shared_preload_libraries=pg_stat_statements`)
 * @returns {Promise<Cluster>}
 */
export async function startCluster({ settings = [] } = {}) {
  const bin = postgresBinDir();
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-pg-"));
  const data = join(dir, "data");
  const asOwner = ownerCommand(dir);
  let stopped = false;
  const stopAtExit = () => stopNow(bin, data, dir, asOwner);
  process.once("exit", stopAtExit);
  try {
    await run(...asOwner(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]));
    const port = await startOnFreePort(bin, data, dir, asOwner, settings);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      startMs: Math.round(performance.now() - started),
      postmasterPid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
      async restart(downMs) {
        await run(...asOwner(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "fast", "-w"]));
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await startServer(bin, data, dir, asOwner, port, settings);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        process.removeListener("exit", stopAtExit);
        await run(...asOwner(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "fast", "-w"])).catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.removeListener("exit", stopAtExit);
    stopNow(bin, data, dir, asOwner);
    throw error;
  }
}

async function startOnFreePort(bin, data, dir, asOwner, settings) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      await startServer(bin, data, dir, asOwner, port, settings);
      return port;
    } catch (error) {
      if (attempt >= MAX_PORT_ATTEMPTS) throw error;
    }
  }
}

async function startServer(bin, data, dir, asOwner, port, settings) {
  const log = join(dir, "server.log");
  // The socket goes in the cluster's own directory: Debian's /var/run/postgresql may be missing or not ours.
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200${settings.map((setting) => ` -c ${setting}`).join("")}`;
  try {
    await run(...asOwner(join(bin, "pg_ctl"), ["start", "-D", data, "-l", log, "-w", "-t", String(START_TIMEOUT_S), "-o", options]));
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-20).join("\n") : "(no server log)";
    throw new Error(`PostgreSQL did not start in ${data} on port ${port} (${error.message.trim()}); its log ends:\n${tail}`);
  }
}

/**
 * How to run a program as the cluster's owner: ourselves, or (as root) `postgres`, given the directory.
 * @returns {(program: string, args: string[]) => [string, string[]]}
 */
function ownerCommand(dir) {
  if (process.getuid?.() !== 0) return (program, args) => [program, args];
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error("Running as root and there is no postgres user to run PostgreSQL as: install Debian's postgresql, which makes it");
  chownSync(dir, uid, gid);
  return (program, args) => ["runuser", ["-u", "postgres", "--", program, ...args]];
}

/** Stops the server at once and removes the directory, synchronously (for the process's exit). */
function stopNow(bin, data, dir, asOwner) {
  if (existsSync(join(data, "postmaster.pid"))) {
    try {
      execFileSync(...asOwner(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"]), { stdio: "ignore" });
    } catch {
      // Already stopped.
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function pgConfigBinDir() {
  try {
    return execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

/** Debian's /usr/lib/postgresql/<version>/bin, newest first. */
function debianBinDirs() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, "bin"));
}

/** A TCP port free on 127.0.0.1 a moment ago (another process may take it first: the caller tries again). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
      .once("error", reject)
      .listen(0, "127.0.0.1", () => {
        const { port } = probe.address();
        probe.close(() => resolve(port));
      });
  });
}
