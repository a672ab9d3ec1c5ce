/** The tests' PostgreSQL cluster: `scripts/postgresCluster.mjs`, which the referee and the benchmarks start too. */
export { postgresBinDir, startCluster } from "../../scripts/postgresCluster.mjs";
export type { Cluster } from "../../scripts/postgresCluster.mjs";
