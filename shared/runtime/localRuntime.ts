/**
 * The `Runtime` of a server hosted in a process (Node, Deno, a message stream, a test client):
 * `localRuntime` builds it once per process (or per connection), with the defaults in one place;
 * the session and task hosts (`LocalSessions`, `LocalTasks`, Deno's `KvTasks`) take it, and Node and
 * Deno hand it to the routes with their sessions.
 *
 * What outlives the process comes from one `Store` (memory by default; Deno KV, PostgreSQL):
 * the homes and tasks hosts over it, where fair shares are counted, and where change
 * notifications fan out (in this process, one process being one isolate, unless the store brings
 * its own across processes). What a caller hosts itself (a test's shared homes, Deno's own
 * telemetry) it passes as options.
 */
import { MemoryBroadcaster } from "../broadcast/MemoryBroadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { Homes } from "../home/Homes.ts";
import { type LocalHomeHost, localHomes } from "../home/LocalHomesPart.ts";
import type { Logger } from "../log/Logger.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { LocalShares } from "../shares/LocalShares.ts";
import type { Shares } from "../shares/Shares.ts";
import type { Telemetry } from "../telemetry/Telemetry.ts";
import type { Runtime } from "./Runtime.ts";
import { type LocalTaskHost, memoryStore, type Store } from "./Store.ts";

export type { LocalTaskHost } from "./Store.ts";

/** A process's runtime: it always counts fair shares, and its task host can be stopped. */
export interface LocalRuntime<H extends Homes = Homes> extends Runtime {
  readonly homes?: H;
  readonly shares: Shares;
  readonly tasks?: LocalTaskHost;
  /** Where what outlives the process is kept; undefined where nothing is (a bare runtime made by hand). */
  readonly store?: Store;
}

/**
 * What `tasks()` brings to a process, in its `local` part: the host of a runtime's tasks. Absent on
 * Workers, where the task objects host them.
 */
export interface LocalTasksPart {
  tasks(runtime: LocalRuntime): LocalTaskHost;
}

/** The edge's facts (`clientAddress`, `port`, `bodylessAnswers`) are the runtime's as given; the rest have defaults. */
export interface LocalRuntimeOptions<H extends Homes> extends Pick<Runtime, "clientAddress" | "port" | "bodylessAnswers"> {
  env: ServerEnv;
  config: Config;
  logger: Logger;
  /** Where what outlives the process is kept: sessions' storage, homes, tasks. Default: `memoryStore()`. */
  store?: Store;
  /** Default, where the definition has homes: the store's host, else the host that `homes()` in the definition's `use` brings, in memory, which `close()` closes. */
  homes?: H;
  /** Default: the store's (`Store.shares`: across the processes on it), else a `LocalShares` of this runtime's own. */
  shares?: Shares;
  /** Default: the definition's `telemetry` option, if any. */
  telemetry?: Telemetry;
  /** Default: the store's host, else, where some tool runs as a task, the host that `tasks()` in the definition's `use` brings. */
  tasks?(runtime: LocalRuntime<H>): LocalTaskHost;
}

/** A runtime, and how to start and stop the hosts it made itself (tasks, and homes it was not given). */
export interface OwnedLocalRuntime<H extends Homes> extends LocalRuntime<H> {
  readonly store: Store;
  /** Picks up what the store kept (homes due while no process ran, tasks left by a process that died): before serving. */
  start(): Promise<void>;
  close(): void;
}

export function localRuntime<H extends Homes = LocalHomeHost>(server: CompiledServer, options: LocalRuntimeOptions<H>): OwnedLocalRuntime<H> {
  const { env, config, logger } = options;
  const store = options.store ?? memoryStore();
  // Homes over the store only where the definition has some (`homes()` in its `use`, checked at compile).
  const storedHomes = options.homes || !store.homes || !server.hasHomes ? undefined : store.homes({ server, config, logger });
  const ownHomes = options.homes ? undefined : (storedHomes ?? localHomes({ server, config, logger }, env));
  const homes = options.homes ?? (ownHomes as H | undefined);
  const parts: LocalRuntime<H> = {
    clientAddress: options.clientAddress,
    port: options.port,
    bodylessAnswers: options.bodylessAnswers,
    server,
    config,
    logger,
    env,
    broadcast: store.broadcaster?.({ maxBytes: config.maxQueueBytes, logger }) ?? new MemoryBroadcaster(config.maxQueueBytes),
    homes,
    store,
    shares: options.shares ?? store.shares?.(config) ?? new LocalShares(config),
    telemetry: options.telemetry ?? server.telemetryFor(env, logger),
  };
  // A task host only where some tool runs as a task: the rest never route a task method.
  const tasks = options.tasks ? options.tasks(parts) : !server.hasTasks ? undefined : store.tasks ? store.tasks(parts) : localTasksPart(server)?.tasks(parts);
  return {
    ...parts,
    store,
    tasks,
    async start() {
      await storedHomes?.start();
      await tasks?.start?.();
    },
    close() {
      tasks?.close();
      ownHomes?.close();
    },
  };
}

/** The `local` part of the capability in `use` that hosts tasks in a process (`tasks()`), if any. */
function localTasksPart(server: CompiledServer): LocalTasksPart | undefined {
  return server.use.find((capability) => (capability.local as Partial<LocalTasksPart> | undefined)?.tasks)?.local as LocalTasksPart | undefined;
}
