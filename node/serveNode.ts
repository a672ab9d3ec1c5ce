/**
 * The Node runtime: the shared routes on `node:http` (`nodeListener`), sessions hosted by
 * `processSessions` (the same `Session` a Durable Object hosts on Workers). What outlives a
 * request is kept in a `Store`: a PostgreSQL database given as `store` (`postgresStore`), where
 * every process on it shares sessions, homes, tasks, fair shares and change notifications, and a
 * 2025 session is held by one process and reached through any (`FleetSessions`); else memory,
 * which ends with the process and says so in one line at start.
 *
 * Options not given come from the command line (`--port N`, `--hostname H`, `--store URL`) and the
 * environment (`PORT`, `DATABASE_URL`; limits and `LOG_LEVEL` as on Workers; and Node's own: a request must arrive whole
 * within `REQUEST_TIMEOUT_MS`, and one address holds at most `MAX_CONNECTIONS_PER_ADDRESS`
 * connections, `capConnections`). It prints `serving on <url>` once it accepts
 * connections, and shuts down cleanly on SIGINT and SIGTERM. A definition, deployment or variable
 * that cannot be served stops the process before it binds its port, and so does an address it
 * cannot bind or a store it cannot open: one line on stderr that says why, exit 1. A promise rejection nothing handled is
 * logged (`internal.unhandled-rejection`) instead of ending the process.
 *
 * @example
 * // node.ts, bundled or run by a TypeScript-aware Node: node server.mjs --port 8787 --store postgres://…
 * import { serveNode } from "durable-mcp/node";
 * import server from "./server.ts";
 * await serveNode(server); // or serveNode(server, { store: process.env.DATABASE_URL })
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { processSessions } from "../shared/host/processSessions.ts";
import { localRuntime } from "../shared/runtime/localRuntime.ts";
import type { Store } from "../shared/runtime/Store.ts";
import { Logger } from "../shared/log/Logger.ts";
import { createRouter } from "../shared/routes/createRouter.ts";
import type { ServerEnv } from "../shared/definition/RequestContext.ts";
import { compiledOf, type ServerDefinition } from "../shared/server/ServerDefinition.ts";
import { type RunningServer, runningServer, type ServeOptions, serveSettings, reportRefusal, type StartRefusal } from "../shared/routes/serveSettings.ts";
import { bindFailure } from "../shared/routes/startFailure.ts";
import { nodeListener, refuseClientError } from "./nodeListener.ts";
import { capConnections, tooManyConnections } from "./capConnections.ts";
import { openStore } from "./openStore.ts";

export interface ServeNodeOptions extends ServeOptions {
  /** Where sessions and homes are kept: a `postgres://` URL, or a `Store`. Default: `--store`, `DATABASE_URL`, else memory (lost on restart). */
  store?: string | Store;
}
export type NodeServer = RunningServer;

/** A request's header block must have arrived this long after its first byte (or its connection's opening), when `REQUEST_TIMEOUT_MS` is longer. */
const HEADERS_TIMEOUT_MS = 10_000;

/** How often Node looks for requests past those bounds: a request is cut at most this long after its bound. */
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/**
 * Exits the process with 1 and one line on stderr when the definition cannot be served ("The
 * server definition is invalid: …"), nor its homes here, nor a variable as set; or when it cannot
 * bind where asked (`start.failed`).
 */
export async function serveNode(given: ServerDefinition, options: ServeNodeOptions = {}): Promise<NodeServer> {
  const definition = compiledOf(given, "serveNode");
  const env = options.env ?? processEnv();
  const settings = serveSettings(definition, options, env, flag);
  if ("event" in settings) refuseToStart(settings);
  const { hostname, port, config } = settings;
  const logger = new Logger(config.logLevel);
  logUnhandledRejections(logger);
  // A database that cannot be reached fails the start, before the port is bound.
  let store: Store;
  try {
    store = await openStore(options.store ?? flag("store"), env.DATABASE_URL);
  } catch (error) {
    refuseToStart({ event: "start.failed", problem: error });
  }
  let boundPort: number | undefined;
  const runtime = localRuntime(definition, {
    env: env as ServerEnv,
    config,
    logger,
    // nodeListener hands the socket's peer address as the request's context.
    clientAddress: (_request, address) => address as string | undefined,
    port: () => boundPort,
    // The answers made from plain data are written by nodeListener, from that data.
    bodylessAnswers: true,
    store,
  });
  const { homes, tasks } = runtime;
  const sessions = processSessions(runtime);
  // What the store kept is picked up before the port is bound: due homes woken, sessions loaded.
  try {
    await runtime.start();
    await sessions.restoreStored();
  } catch (error) {
    refuseToStart({ event: "start.failed", problem: error });
  }
  const served = { ...runtime, sessions };
  const handle = createRouter<Record<string, string>>(definition, () => served, options);
  // Node's request timeout bounds receiving a request (its headers, then its body) and nothing
  // after: a response streamed for hours (HTTP+SSE, a GET stream, a listen) is not cut by it.
  const http = createServer({
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs),
    connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
  });
  // A server's own routes and stages get the platform's `Request`, which every web API takes.
  const platformRequests = (options.routes?.length ?? 0) > 0 || (options.before?.length ?? 0) > 0;
  const serve = nodeListener((request, address) => handle(request, env, address), { platformRequests });
  // Behind a proxy every connection is the proxy's: it bounds its own clients.
  const overCap = config.trustProxy ? undefined : capConnections(http, config.maxConnectionsPerAddress);
  const refuse = nodeListener(async () => tooManyConnections(config.maxConnectionsPerAddress));
  http.on("request", (incoming, outgoing) => (overCap?.(incoming.socket) ? refuse : serve)(incoming, outgoing));
  http.on("clientError", refuseClientError);
  // A port in use, an address not this machine's: one line and exit 1, not Node's stack.
  await new Promise<void>((resolve) => {
    const refused = (error: Error) => refuseToStart({ event: "start.failed", problem: bindFailure(error, { hostname, port }) });
    http.once("error", refused);
    http.listen(port, hostname, () => {
      http.off("error", refused);
      resolve();
    });
  });
  boundPort = (http.address() as AddressInfo).port;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const closePort = () => {
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeIdleConnections();
    return closed;
  };
  const onSignal = () => void server.shutdown().then(() => process.exit(0));
  const server = runningServer(`http://${host}:${boundPort}`, { sessions, tasks, homes }, closePort, () => {
    http.closeAllConnections();
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
    return store.close();
  });
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  // Once bound, so a start that fails says only why; on stderr, so stdout's first line stays `serving on <url>`, which scripts wait for.
  if (!store.durable) console.error("state is in memory and lost on restart: pass --store postgres://… (or set DATABASE_URL) to keep it");
  console.log(`serving on ${server.url}`);
  return server;
}

/** One line on stderr that says why (`reportRefusal`), and exit 1: no port bound, nothing half started. */
function refuseToStart(refusal: StartRefusal): never {
  reportRefusal(refusal);
  process.exit(1);
}

let loggingUnhandledRejections = false;

/** A promise rejection nothing handled is logged, once per process, instead of ending it (as on Deno). */
function logUnhandledRejections(logger: Logger): void {
  if (loggingUnhandledRejections) return;
  loggingUnhandledRejections = true;
  process.on("unhandledRejection", (reason) => {
    logger.error("internal.unhandled-rejection", { message: reason instanceof Error ? reason.message : String(reason), stack: reason instanceof Error ? reason.stack : undefined });
  });
}

/** The process's variables that are set. */
function processEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
