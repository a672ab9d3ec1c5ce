/**
 * Brings a database's tables to this package's schema (`MIGRATIONS`), at a process's start:
 * idempotent (a database already there is left as it is), and safe when several processes start
 * at once — all of it runs in one transaction behind a transaction-scoped advisory lock, so one
 * process migrates while the others wait, then find nothing left to do. A failed migration rolls
 * back whole: the database stays at its previous version.
 *
 * A database at a version newer than this package knows (a newer release ran against it) is
 * refused with a sentence saying so: an older process must not write a schema it does not know.
 */
import type { Sql } from "postgres";
import { type Migration, MIGRATIONS } from "./migrations.ts";

/** The advisory lock's key, the same in every process of every release: the bytes "mcp-schm". */
const MIGRATION_LOCK = 0x6d63702d7363686dn;

/** @returns the schema's version before and after; equal when there was nothing to do */
export async function migrate(sql: Sql, migrations: readonly Migration[] = MIGRATIONS): Promise<{ from: number; to: number }> {
  checkOrder(migrations);
  const latest = migrations.at(-1)?.version ?? 0;
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    await tx`CREATE TABLE IF NOT EXISTS mcp_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
    const [row] = await tx<{ version: number }[]>`SELECT coalesce(max(version), 0)::integer AS version FROM mcp_schema`;
    const from = row!.version;
    if (from > latest) {
      throw new Error(`The database's schema is at version ${from}, newer than this release of durable-mcp knows (${latest}): run a release at least as new as the one that migrated it`);
    }
    for (const migration of migrations.filter((m) => m.version > from)) {
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO mcp_schema (version, name) VALUES (${migration.version}, ${migration.name})`;
    }
    return { from, to: latest };
  });
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new Error(`Migration "${migration.name}" has version ${migration.version} at place ${index + 1}: versions run 1, 2, 3… in order`);
  });
}
