/**
 * The Deno runtime: the shared routes on `Deno.serve`, sessions hosted in this process by
 * `LocalSessions` (the same `Session` a Durable Object hosts on Workers), in memory or — with a
 * KV path — in Deno KV, so a restarted server continues its sessions. Tasks (tools declared with
 * `task`) live in this process (`LocalTasks`) and end with it, or with a KV path in KV
 * (`KvTasks`), where every process on the same file shares them and picks up those of a process
 * that died. Homes (`home: "user"` or a handle) live in memory or in KV (`LocalHomes`). Change
 * notifications fan out in memory: one process is one isolate.
 *
 * Options not given come from the command line (`--port N`, `--hostname H`, `--kv PATH`) and the
 * environment (`PORT`, `KV_PATH`; limits and `LOG_LEVEL` as on Workers). It prints
 * `listening on <url>` once it accepts connections, and shuts down cleanly on SIGINT and SIGTERM.
 * A definition, deployment or variable that cannot be served stops the process before it
 * listens: one line on stderr that says why, exit 1 (`refuseToStart`).
 * A promise rejection nothing handled is logged (`internal.unhandled-rejection`) instead of ending
 * the process (`logUnhandledRejections`, shared with `serveDenoStdio`).
 *
 * @example
 * // deno.ts — deno run --allow-net --allow-env --allow-read --allow-write --unstable-kv deno.ts --port 8787
 * import { serveDeno } from "durable-mcp/deno";
 * import server from "./server.ts";
 * await serveDeno(server);
 */
import { MemoryBroadcaster } from "../shared/broadcast/MemoryBroadcaster.ts";
import { readConfig } from "../shared/config/readConfig.ts";
import { configurationProblem } from "../shared/config/configurationProblem.ts";
import { LocalSessions } from "../shared/host/LocalSessions.ts";
import { LocalTasks } from "../shared/tasks/LocalTasks.ts";
import { LocalHomes } from "../shared/home/LocalHomes.ts";
import { LocalShares } from "../shared/shares/LocalShares.ts";
import { ownerOf } from "../shared/auth/Caller.ts";
import { isLoopbackHost } from "../shared/auth/protectedResource.ts";
import { resourceRequiredSentence } from "../shared/auth/ResourceServer.ts";
import { homeProblem } from "../shared/home/deploymentProblems.ts";
import { Logger } from "../shared/log/Logger.ts";
import { denoTelemetry } from "./denoTelemetry.ts";
import { createRouter, type RouterOptions } from "../shared/routes/createRouter.ts";
import type { ServerEnv } from "../shared/definition/RequestContext.ts";
import type { ServerDefinition } from "../shared/server/ServerDefinition.ts";
import { KvStorage } from "./KvStorage.ts";
import { KvShares } from "./KvShares.ts";
import { KvTasks } from "./KvTasks.ts";
import { lockTolerant } from "./lockTolerantKv.ts";
import { logUnhandledRejections } from "./logUnhandledRejections.ts";
import { refuseToStart } from "./refuseToStart.ts";

export interface ServeDenoOptions extends RouterOptions<Record<string, string>> {
  /** 0 picks a free port. Default: `--port`, `PORT`, else 8787. */
  port?: number;
  /** Default: `--hostname`, else 127.0.0.1 (loopback only: anything else exposes the server). */
  hostname?: string;
  /** A Deno KV database file for session storage. Default: `--kv`, `KV_PATH`, else in memory. */
  kvPath?: string;
  /** Variables for limits, `LOG_LEVEL` and handlers' `ctx.env`. Default: the process environment. */
  env?: Record<string, string>;
}

export interface DenoServer {
  url: string;
  shutdown(): Promise<void>;
  /**
   * Deletes everything a user has here (a data-protection request): their home (`home: "user"`
   * definitions' storage), and their live sessions and tasks. Resolves with how many of each.
   */
  deleteUserData(who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }>;
}

const DEFAULT_PORT = 8787;
/** Tries at opening a KV file that another process holds locked (about 5 s in all). */
const KV_OPEN_ATTEMPTS = 10;
/** How long a shutdown waits for open connections to finish before it goes on without them. */
const SHUTDOWN_GRACE_MS = 5_000;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * Exits the process with 1 and one line on stderr (`refuseToStart`) when the definition cannot be
 * served ("The server definition is invalid: …"), nor its homes here, nor a variable as set.
 */
export async function serveDeno(definition: ServerDefinition, options: ServeDenoOptions = {}): Promise<DenoServer> {
  if (definition.problem) refuseToStart("definition.invalid", definition.problem);
  // A deployment that cannot serve the homes its definitions declare does not start either.
  const problem = homeProblem(definition, options.authorization !== undefined, true);
  if (problem) refuseToStart("config.homes", problem);
  const env = options.env ?? Deno.env.toObject();
  const hostname = options.hostname ?? flag("hostname") ?? "127.0.0.1";
  // Served on loopback: refuse other host names (DNS rebinding), as `npm start` does, unless configured.
  if (LOOPBACK.has(hostname)) env.ALLOWED_HOSTS ??= "localhost,127.0.0.1,[::1]";
  let port: number;
  let config: ReturnType<typeof readConfig>;
  try {
    port = options.port ?? portFrom(flag("port") ?? env.PORT);
    config = readConfig(env);
  } catch (error) {
    refuseToStart("config.invalid", configurationProblem(error));
  }
  // Tokens' audience is never taken from a Host header a client writes (issue 21): off loopback, say so now.
  const unnamed = resourceProblem(options, env, hostname, config.allowedHosts);
  if (unnamed) refuseToStart("config.invalid", unnamed);
  const logger = new Logger(config.logLevel);
  logUnhandledRejections(logger);
  const broadcast = new MemoryBroadcaster(config.maxQueueBytes);
  // Deno's own OpenTelemetry when it is on (OTEL_DENO=true); else the definition's option, if any.
  const telemetry = denoTelemetry(env) ?? definition.telemetryFor(env as ServerEnv, logger);
  const kvPath = options.kvPath ?? flag("kv") ?? env.KV_PATH;
  const kv = kvPath === undefined ? undefined : lockTolerant(await openShared(kvPath));
  const homes = definition.hasHomes ? new LocalHomes({ server: definition, config, logger, storeFor: kv && ((name) => KvStorage.home(kv, name)) }) : undefined;
  if (kv && homes) await homes.restore(await KvStorage.homeNames(kv));
  // One count of fair shares for the process: sessions and tasks, per client and in total.
  const shares = new LocalShares(config);
  const sessions = new LocalSessions({ server: definition, config, logger, env: env as ServerEnv, broadcast, homes, shares, telemetry, storageFor: kv && ((id) => new KvStorage(kv, id)) });
  if (kv) await sessions.restore(await KvStorage.sessionIds(kv));
  // Tasks are kept in memory: they end with the process (a Worker's are durable).
  // With KV, tasks live there too, shared with every process on the same file and picked up by
  // another when theirs dies; else in this process, ending with it.
  const taskOptions = { server: definition, config, logger, env: env as ServerEnv, broadcast, homes, telemetry };
  const tasks = kv ? new KvTasks(kv, { ...taskOptions, shares: new KvShares(kv, config) }) : new LocalTasks({ ...taskOptions, shares });
  if (tasks instanceof KvTasks) tasks.start();
  let boundPort: number | undefined;
  const handle = createRouter<Record<string, string>>(
    definition,
    { sessions: () => sessions, broadcaster: () => broadcast, tasks: () => tasks, homes: () => homes, telemetry: () => telemetry, clientAddress: (_request, info) => peerAddress(info), port: () => boundPort },
    options,
  );
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const onListen = (address: { hostname: string; port: number }) => {
    boundPort = address.port;
    listening(`http://${address.hostname}:${address.port}`);
  };
  const http = Deno.serve({ hostname, port, onListen }, (request, info) => handle(request, env, info));
  const server: DenoServer = {
    url: await url,
    async deleteUserData(who) {
      const owner = await ownerOf(who);
      await homes?.erase(owner);
      return { sessions: await sessions.endOwnedBy(owner), tasks: await tasks.eraseOwnedBy(owner) };
    },
    async shutdown() {
      sessions.close();
      tasks.close();
      homes?.close();
      // Graceful, but not for ever: a client holding a stream open (HTTP+SSE, a listen) would hold
      // the shutdown until it leaves. Past the grace, the process exits with its streams cut.
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([http.shutdown(), new Promise<void>((resolve) => (grace = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
      clearTimeout(grace);
      kv?.close();
    },
  };
  console.log(`listening on ${server.url}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void server.shutdown().then(() => Deno.exit(0)));
  return server;
}

/**
 * Why this server may not check tokens as configured: it has `authorization` without `resource`
 * and answers a name that is not loopback (it listens on another host, or `ALLOWED_HOSTS` lets
 * other names in, or lets any in) — else undefined.
 */
function resourceProblem(options: ServeDenoOptions, env: Record<string, string>, hostname: string, allowedHosts: readonly string[]): TypeError | undefined {
  const authorization = options.authorization?.resourceServer(env, {});
  if (!authorization || authorization.fixedResource !== undefined) return undefined;
  if (!isLoopbackHost(hostname)) return new TypeError(resourceRequiredSentence(`it listens on ${JSON.stringify(hostname)}, not on a loopback host`));
  const foreign = allowedHosts.length === 0 ? "any host name" : allowedHosts.find((name) => !isLoopbackHost(name));
  return foreign === undefined ? undefined : new TypeError(resourceRequiredSentence(`ALLOWED_HOSTS lets it answer ${foreign === "any host name" ? foreign : JSON.stringify(foreign)}`));
}

/** Opens a KV file another process may be opening at the same moment (SQLite then answers "database is locked" for a while). */
async function openShared(path: string): Promise<Deno.Kv> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await Deno.openKv(path);
    } catch (error) {
      if (attempt >= KV_OPEN_ATTEMPTS || !String(error).includes("locked")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/** The client's IP address from `Deno.serve`'s handler info (a TCP peer; a Unix socket has none). */
function peerAddress(info: unknown): string | undefined {
  const remote = (info as { remoteAddr?: { hostname?: unknown } } | undefined)?.remoteAddr;
  return typeof remote?.hostname === "string" ? remote.hostname : undefined;
}

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Deno.args[at + 1] : undefined;
}

function portFrom(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) throw new RangeError(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(raw)}`);
  return port;
}
