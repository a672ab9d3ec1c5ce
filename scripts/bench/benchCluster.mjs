/**
 * The store benchmark's PostgreSQL cluster (`stores.mjs`): the tests' own (`scripts/postgresCluster.mjs`),
 * with `pg_stat_statements` preloaded where the server has it, so the benchmark can count the
 * statements a server sends.
 */
import { hasStatementStats, startCluster } from "../postgresCluster.mjs";

/** @returns {Promise<import("../postgresCluster.mjs").Cluster & { statements: boolean }>} `statements`: whether pg_stat_statements was preloaded */
export async function startBenchCluster() {
  const statements = hasStatementStats();
  const cluster = await startCluster({ settings: statements ? ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"] : [] });
  return Object.assign(cluster, { statements });
}
