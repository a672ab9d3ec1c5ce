/**
 * Homes in PostgreSQL (`postgresStore`): the same `LocalHomes`, with each home's store in
 * `mcp_homes` / `mcp_home_entries` (`PgStorage.home`: each write a transaction behind the home's
 * advisory lock, bounded above by `HomeHost`) and when each is due in `mcp_homes.wake_at`
 * (`PgHomeExpiries`), so every process on the database shares them and a restarted one finds
 * them. Its `start()` wakes what fell due while no process ran.
 */
import type { Sql } from "postgres";
import { PgStorage } from "../../../postgres/PgStorage.ts";
import type { LocalHomesOptions } from "../../../shared/home/LocalHomesPart.ts";
import { LocalHomes } from "../LocalHomes.ts";
import { PgHomeExpiries } from "./PgHomeExpiries.ts";

/** @example const homes = pgHomes(sql, { server, config, logger }); await homes.start(); … homes.close(); */
export function pgHomes(sql: Sql, options: Omit<LocalHomesOptions, "storeFor">): LocalHomes {
  return new LocalHomes({ ...options, storeFor: (name) => PgStorage.home(sql, name), expiries: new PgHomeExpiries(sql) });
}
