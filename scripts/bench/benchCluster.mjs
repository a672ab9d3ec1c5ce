/**
 * A PostgreSQL cluster of the store benchmark's own (`stores.mjs`), as the tests make theirs
 * (test/support/postgresCluster.ts): `initdb` into a temporary directory, `pg_ctl` on 127.0.0.1 at
 * a free port, trust authentication on loopback only; as root, the programs run as the `postgres`
 * user (PostgreSQL refuses root). Started with `pg_stat_statements` preloaded where the server
 * has it, so the benchmark can count the statements a server sends. `stop()` stops it and removes
 * the directory; a process that exits without calling it (a failure, a signal) stops it at exit.
 *
 * The programs come from PG_BINDIR, else `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/<version>/bin. `fsync=off`: the cluster lives as long as one run.
 */
import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
/** How long `pg_ctl start` waits for the server to accept connections, in seconds. */
const START_TIMEOUT_S = 60;
/** Ports tried before giving up: another process may take a free port before the server binds it. */
const MAX_PORT_ATTEMPTS = 3;

/**
 * @returns {Promise<{ url: string, port: number, statements: boolean, postmasterPid(): number, stop(): Promise<void> }>}
 *   `url`: the superuser's, of the `postgres` database; `statements`: whether pg_stat_statements was preloaded
 */
export async function startBenchCluster() {
  const bin = binDir();
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-bench-pg-"));
  const data = join(dir, "data");
  const asOwner = ownerCommand(dir);
  const stopNow = () => {
    if (existsSync(join(data, "postmaster.pid"))) {
      try {
        execFileSync(...asOwner(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"]), { stdio: "ignore" });
      } catch {
        // Already stopped.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stopNow);
  try {
    await run(...asOwner(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]));
    const statements = existsSync(join(libDir(bin), "pg_stat_statements.so"));
    let port;
    for (let attempt = 1; port === undefined; attempt++) {
      const candidate = await freePort();
      const options = [`-c listen_addresses=127.0.0.1 -c port=${candidate} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200`];
      if (statements) options.push("-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all");
      try {
        await run(...asOwner(join(bin, "pg_ctl"), ["start", "-D", data, "-l", join(dir, "server.log"), "-w", "-t", String(START_TIMEOUT_S), "-o", options.join(" ")]));
        port = candidate;
      } catch (error) {
        if (attempt >= MAX_PORT_ATTEMPTS) {
          const log = join(dir, "server.log");
          const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-20).join("\n") : "(no server log)";
          throw new Error(`PostgreSQL did not start in ${data} (${error.message.trim()}); its log ends:\n${tail}`);
        }
      }
    }
    let stopped = false;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      statements,
      postmasterPid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
      async stop() {
        if (stopped) return;
        stopped = true;
        process.removeListener("exit", stopNow);
        await run(...asOwner(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "fast", "-w"])).catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.removeListener("exit", stopNow);
    stopNow();
    throw error;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function binDir() {
  const candidates = [process.env.PG_BINDIR, pgConfig("--bindir"), ...debianBinDirs()].filter(Boolean);
  const found = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (!found) throw new Error(`No PostgreSQL server programs (initdb, pg_ctl) found in ${candidates.join(", ") || "PG_BINDIR, pg_config --bindir or /usr/lib/postgresql/*/bin"}: install Debian's postgresql or set PG_BINDIR`);
  return found;
}

/** Where the server's extension libraries are: `pg_config --pkglibdir`, else Debian's beside `bin`. */
function libDir(bin) {
  return existsSync(join(bin, "pg_config")) ? execFileSync(join(bin, "pg_config"), ["--pkglibdir"], { encoding: "utf8" }).trim() : join(bin, "../lib");
}

function pgConfig(flag) {
  try {
    return execFileSync("pg_config", [flag], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

function debianBinDirs() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, "bin"));
}

/** How to run a program as the cluster's owner: ourselves, or (as root) `postgres`, given the directory. */
function ownerCommand(dir) {
  if (process.getuid?.() !== 0) return (program, args) => [program, args];
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  chownSync(dir, uid, gid);
  return (program, args) => ["runuser", ["-u", "postgres", "--", program, ...args]];
}
