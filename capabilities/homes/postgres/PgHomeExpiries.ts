/**
 * When each home in PostgreSQL is due to wake (`HomeExpiries`), in its owner row:
 * `mcp_homes.wake_at`, indexed, so a restarted process reads only what is due. Several processes
 * share it; setting a time is one statement, so the last one set wins, as in the other indexes.
 *
 * A home's owner row is made by its first write; a time set for a home with no row yet makes the
 * row (an empty home, which its wakeup erases). Clearing the time of a home that holds no entry
 * deletes its row: an erased home leaves nothing.
 */
import type { Sql } from "postgres";
import type { HomeExpiries } from "../HomeExpiries.ts";

export class PgHomeExpiries implements HomeExpiries {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async set(name: string, atMs: number): Promise<void> {
    await this.#sql`
      INSERT INTO mcp_homes (id, wake_at) VALUES (${name}, ${new Date(atMs)})
      ON CONFLICT (id) DO UPDATE SET wake_at = excluded.wake_at`;
  }

  async clear(name: string): Promise<void> {
    await this.#sql`
      WITH emptied AS (
        DELETE FROM mcp_homes WHERE id = ${name} AND NOT EXISTS (SELECT 1 FROM mcp_home_entries WHERE owner = ${name}) RETURNING id)
      UPDATE mcp_homes SET wake_at = NULL WHERE id = ${name} AND wake_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM emptied)`;
  }

  async due(nowMs: number, limit: number): Promise<string[]> {
    const rows = await this.#sql<{ id: string }[]>`SELECT id FROM mcp_homes WHERE wake_at <= ${new Date(nowMs)} ORDER BY wake_at LIMIT ${limit}`;
    return rows.map((row) => row.id);
  }

  async at(name: string): Promise<number | undefined> {
    const [row] = await this.#sql<{ wake_at: Date | null }[]>`SELECT wake_at FROM mcp_homes WHERE id = ${name}`;
    return row?.wake_at ? row.wake_at.getTime() : undefined;
  }

  async next(): Promise<number | undefined> {
    const [row] = await this.#sql<{ at: Date | null }[]>`SELECT min(wake_at) AS at FROM mcp_homes WHERE wake_at IS NOT NULL`;
    return row?.at ? row.at.getTime() : undefined;
  }
}
