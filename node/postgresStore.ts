/**
 * A PostgreSQL database as a process's `Store`, for Node and self-hosted Deno: sessions' storage
 * (`PgSessions`: loaded again at start, swept in the database once past their deadline), homes
 * (`pgHomes`) and tasks (`PgTasks`: a lease per run, so a run lost with its process is started
 * again by another), shared by every process on the database, so a restarted process, or another
 * one, finds them; fair shares counted across them (`PgShares`: lapsed holdings swept every
 * SWEEP_INTERVAL_MS); change notifications cross to every process on it (`PgBroadcaster`), and the
 * processes on it form a fleet (`PgFleet`) that carries a 2025 session's requests to its holder.
 *
 * The driver (`postgres`) is an optional peer dependency, loaded here and only here, when a store
 * is asked for: a server without one never needs it installed. Opening migrates the database
 * (`migrate`: idempotent, one process at a time) and fails with one sentence — naming the host and
 * database, never the password — when the database cannot be reached, the driver is missing, or
 * the schema is newer than this release.
 */
import type { Sql } from "postgres";
import { pgHomes } from "../capabilities/homes/postgres/pgHomes.ts";
import { PgTasks } from "../capabilities/tasks/postgres/PgTasks.ts";
import { PgBroadcaster } from "../capabilities/watch/postgres/PgBroadcaster.ts";
import { migrate } from "../postgres/migrate.ts";
import { PgFleet } from "../postgres/PgFleet.ts";
import { PgSessions } from "../postgres/PgSessions.ts";
import { PgShares, SWEEP_INTERVAL_MS } from "../postgres/PgShares.ts";
import type { Store } from "../shared/runtime/Store.ts";

/** Connections in the pool: a home's writers queue for one, so a few serve many homes. */
const POOL_SIZE = 10;
/** How long opening a connection may take before the start fails. */
const CONNECT_TIMEOUT_S = 10;
/** How long closing waits for queries under way before it ends their connections. */
const CLOSE_TIMEOUT_S = 5;

export interface PostgresStoreOptions {
  /** Where a failed sweep, or the fleet's failed renewal, is reported. Default: stderr. */
  onError?(error: unknown): void;
}

/** @example const store = await postgresStore("postgres://app@db.internal/app"); … await store.close(); */
export async function postgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const where = describe(url);
  let sql: Sql;
  try {
    const { default: postgres } = await import("postgres");
    sql = postgres(url, { max: POOL_SIZE, connect_timeout: CONNECT_TIMEOUT_S, onnotice: () => {} });
  } catch (error) {
    throw new Error(`Cannot use PostgreSQL at ${where}: ${messageOf(error)} (install the driver: npm install postgres)`);
  }
  try {
    await migrate(sql);
  } catch (error) {
    await sql.end({ timeout: 0 }).catch(() => {});
    throw new Error(`Cannot use PostgreSQL at ${where}: ${messageOf(error)}`);
  }
  const sessions = new PgSessions(sql);
  let broadcaster: PgBroadcaster | undefined;
  let fleet: PgFleet | undefined;
  sessions.startSweeping(options.onError ?? ((error) => console.error(`Sweeping expired sessions in PostgreSQL at ${where} failed: ${messageOf(error)}`)));
  const sweepShares = () => void PgShares.sweep(sql).catch(options.onError ?? ((error) => console.error(`Sweeping lapsed fair shares in PostgreSQL at ${where} failed: ${messageOf(error)}`)));
  const shareSweep = setInterval(sweepShares, SWEEP_INTERVAL_MS);
  sweepShares();
  return {
    description: `PostgreSQL at ${where}`,
    durable: true,
    storageFor: (id) => sessions.storageFor(id),
    sessionIds: () => sessions.ids(),
    homes: (homesOptions) => pgHomes(sql, homesOptions),
    tasks: (runtime) => new PgTasks(sql, runtime),
    shares: (config) => new PgShares(sql, config),
    broadcaster: (broadcast) => (broadcaster ??= new PgBroadcaster(sql, broadcast)),
    fleet: () => (fleet ??= new PgFleet(sql, { onError: options.onError ?? ((error) => console.error(`The fleet on PostgreSQL at ${where}: ${messageOf(error)}`)) })),
    async close() {
      // Before anything else: the others stop carrying requests here, and this process's holders go.
      await fleet?.leave();
      // Then, while the pool is open: a change published just before still reaches the others.
      await broadcaster?.close();
      sessions.close();
      clearInterval(shareSweep);
      await sql.end({ timeout: CLOSE_TIMEOUT_S });
    },
  };
}

/** Whether `text` names a PostgreSQL database (`postgres://…`, `postgresql://…`). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/** The host and database of `url`, without its user's password. */
function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host || "localhost"}${parsed.pathname || "/"}`;
  } catch {
    return "an address that is not a URL";
  }
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  const message = error instanceof Error ? error.message : String(error);
  return message || (error as { code?: string })?.code || "unknown error";
}
