/**
 * Test helper: an empty database of its own on the postgres project's cluster
 * (`test/postgres/clusterSetup.ts`), so that test files share no tables. `drop()` ends every
 * connection to it and drops it.
 */
import postgres from "postgres";
import { inject } from "vitest";

export interface FreshDatabase {
  /** The superuser's URL of the new database. */
  readonly url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const server = inject("postgresUrl");
  const name = `test_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const sql = postgres(server, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await sql.end();
      }
    },
  };
}
