/**
 * The postgres project's global setup: one cluster for the whole run (`startCluster`), its URL
 * handed to the test files (`inject("postgresUrl")`), where each makes a database of its own
 * (`freshDatabase`). The cluster is stopped when the run ends, whether the tests passed or not.
 */
import type { TestProject } from "vitest/node";
import { startCluster } from "../support/postgresCluster.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startCluster();
  console.log(`PostgreSQL started in ${cluster.startMs} ms on port ${cluster.port}`);
  project.provide("postgresUrl", cluster.url);
  return () => cluster.stop();
}
