/**
 * The contract-deno project's global setup: a folder of the run's own, named to the servers the
 * tests start in `DENO_STORE_DIR`, so that every Deno server keeps its state in a KV file of its
 * own there (`startServer`), as a deployment on KV does. Removed when the run ends.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "durable-mcp-deno-stores-"));
  process.env.DENO_STORE_DIR = dir;
  return () => rm(dir, { recursive: true, force: true });
}
