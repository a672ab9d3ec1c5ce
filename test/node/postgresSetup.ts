/**
 * The contract-node project's global setup: a PostgreSQL cluster of the run's own
 * (`startCluster`), named to the servers the tests start in `NODE_STORE_SERVER_URL`, so that a
 * test that restarts its server on a `persistDir` (`startServer`) finds its sessions and homes
 * again on Node, in a database of that directory's own. Stopped when the run ends.
 */
import { startCluster } from "../support/postgresCluster.ts";

export default async function setup(): Promise<() => Promise<void>> {
  const cluster = await startCluster();
  process.env.NODE_STORE_SERVER_URL = cluster.url;
  return () => cluster.stop();
}
