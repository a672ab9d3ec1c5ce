/**
 * The Deno runtime: the shared routes on `Deno.serve`, sessions hosted by `processSessions` (the
 * same `Session` a Durable Object hosts on Workers). What outlives a request is kept in one
 * `Store`: memory; a Deno KV file (`kvStore`) or a PostgreSQL database (`postgresStore`), where
 * every process on it shares sessions, homes, tasks, fair shares and change notifications, and a
 * 2025 session is held by one process and reached through any (`FleetSessions`). A restarted
 * server, or another, continues its sessions.
 *
 * Options not given come from the command line (`--port N`, `--hostname H`, `--kv PATH`,
 * `--store URL`) and the environment (`PORT`, `KV_PATH`, `DATABASE_URL`; limits and `LOG_LEVEL` as on Workers). It prints
 * `serving on <url>` once it accepts connections, and shuts down cleanly on SIGINT and SIGTERM.
 * A definition, deployment or variable that cannot be served stops the process before it
 * binds its port, and so does a port it cannot have or a KV file or database it cannot open: one line on stderr that
 * says why, exit 1 (`refuseToStart`).
 * A promise rejection nothing handled is logged (`internal.unhandled-rejection`) instead of ending
 * the process (`logUnhandledRejections`, shared with `serveDenoStdio`).
 *
 * @example
 * // deno.ts — deno run --allow-net --allow-env --allow-read --allow-write --unstable-kv deno.ts --port 8787
 * import { serveDeno } from "durable-mcp/deno";
 * import server from "./server.ts";
 * await serveDeno(server);
 */
import { processSessions } from "../shared/host/processSessions.ts";
import { localRuntime } from "../shared/runtime/localRuntime.ts";
import type { LocalHomeHost } from "../shared/home/LocalHomesPart.ts";
import { Logger } from "../shared/log/Logger.ts";
import { denoTelemetry } from "../capabilities/telemetry/deno/denoTelemetry.ts";
import { createRouter } from "../shared/routes/createRouter.ts";
import type { ServerEnv } from "../shared/definition/RequestContext.ts";
import type { CompiledServer } from "../shared/server/CompiledServer.ts";
import { compiledOf, type ServerDefinition } from "../shared/server/ServerDefinition.ts";
import type { Store } from "../shared/runtime/Store.ts";
import { kvStore } from "./kvStore.ts";
import { openStore } from "../node/openStore.ts";
import { lockTolerant } from "./lockTolerantKv.ts";
import { logUnhandledRejections } from "./logUnhandledRejections.ts";
import { refuseToStart } from "./refuseToStart.ts";
import { refuseOtherTargetHost } from "./refuseOtherTargetHost.ts";
import { type RunningServer, runningServer, type ServeOptions, type ServeSettings, serveSettings } from "../shared/routes/serveSettings.ts";
import { bindFailure } from "../shared/routes/startFailure.ts";

export interface ServeDenoOptions extends ServeOptions {
  /** A Deno KV database file for sessions, homes and tasks. Default: `--kv`, `KV_PATH`. */
  kvPath?: string;
  /** A PostgreSQL database (`postgres://…`) or a `Store`, in place of a KV file. Default: `--store`, else `DATABASE_URL` when no KV file is given, else in memory. */
  store?: string | Store;
}

export type DenoServer = RunningServer;

/** Tries at opening a KV file that another process holds locked (about 5 s in all). */
const KV_OPEN_ATTEMPTS = 10;

/**
 * Exits the process with 1 and one line on stderr (`refuseToStart`) when the definition cannot be
 * served ("The server definition is invalid: …"), nor its homes here, nor a variable as set; or
 * when it cannot bind where asked, or open its KV file (`start.failed`).
 */
export async function serveDeno(server: ServerDefinition, options: ServeDenoOptions = {}): Promise<DenoServer> {
  const definition = compiledOf(server, "serveDeno");
  const env = options.env ?? Deno.env.toObject();
  const settings = serveSettings(definition, options, env, flag);
  if ("event" in settings) refuseToStart(settings.event, settings.problem);
  const logger = new Logger(settings.config.logLevel);
  logUnhandledRejections(logger);
  // What fails from here on (the port taken, a KV file that cannot be opened) fails the start,
  // which nothing awaits in a way that would end the process: one line, and exit 1.
  try {
    return await start(definition, options, env, settings, logger);
  } catch (error) {
    refuseToStart("start.failed", error);
  }
}

/** `serveDeno` once the settings are read: opens what it was given, binds its port, resolves once it has. */
async function start(definition: CompiledServer, options: ServeDenoOptions, env: Record<string, string>, settings: ServeSettings, logger: Logger): Promise<DenoServer> {
  const { hostname, port, config } = settings;
  const kvPath = options.kvPath ?? flag("kv") ?? env.KV_PATH;
  const given = options.store ?? flag("store");
  if (given !== undefined && kvPath !== undefined) throw new Error("A server keeps its state in one place: pass a KV file (--kv, KV_PATH) or a store (--store), not both");
  const store: Store = kvPath !== undefined ? kvStore(lockTolerant(await openShared(kvPath)), kvPath) : await openStore(given, env.DATABASE_URL);
  let boundPort: number | undefined;
  // Fair shares of sessions and tasks, per client and in total: counted in the store across its processes (KV, PostgreSQL), else in this process.
  const runtime = localRuntime<LocalHomeHost>(definition, {
    env: env as ServerEnv,
    config,
    logger,
    clientAddress: (_request, info) => peerAddress(info),
    port: () => boundPort,
    // With KV, sessions, homes and tasks live there: tasks shared with every process on the same
    // file and picked up by another when theirs dies (counted across them); else in this process.
    store,
    // Deno's own OpenTelemetry when it is on (OTEL_DENO=true); else the definition's option, if any.
    telemetry: denoTelemetry(env, definition.handleTemplateOf),
  });
  const { homes, tasks } = runtime;
  const sessions = processSessions(runtime);
  // What the store kept is picked up before the port is bound: due homes woken, sessions loaded, tasks claimed.
  await runtime.start();
  await sessions.restoreStored();
  const served = { ...runtime, sessions };
  const handle = createRouter<Record<string, string>>(definition, () => served, options);
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const onListen = (address: { hostname: string; port: number }) => {
    boundPort = address.port;
    listening(`http://${address.hostname}:${address.port}`);
  };
  let http: ReturnType<typeof Deno.serve>;
  try {
    http = Deno.serve({ hostname, port, onListen }, (request, info) => refuseOtherTargetHost(request) ?? handle(request, env, info));
  } catch (error) {
    throw bindFailure(error, { hostname, port });
  }
  const server = runningServer(await url, { sessions, tasks, homes }, () => http.shutdown(), () => store.close());
  console.log(`serving on ${server.url}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void server.shutdown().then(() => Deno.exit(0)));
  return server;
}

/** Opens a KV file another process may be opening at the same moment (SQLite then answers "database is locked" for a while). */
async function openShared(path: string): Promise<Deno.Kv> {
  // Without the flag, Deno has no `openKv` at all.
  if (typeof Deno.openKv !== "function") throw new Error(`A KV file (--kv or KV_PATH: ${JSON.stringify(path)}) needs Deno KV, which this deno offers only with --unstable-kv: run it with that flag`);
  for (let attempt = 1; ; attempt++) {
    try {
      return await Deno.openKv(path);
    } catch (error) {
      if (attempt >= KV_OPEN_ATTEMPTS || !String(error).includes("locked")) throw new Error(`Cannot open the KV file ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`);
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
