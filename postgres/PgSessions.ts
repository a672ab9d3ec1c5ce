/**
 * Sessions' storage in PostgreSQL, for a process's store: each session's key-value rows
 * (`PgStorage.session`), its deadline copied to `mcp_sessions.expires_at` whenever the session
 * writes its record, the sessions to load again at start, and a sweep that deletes the sessions
 * past their deadline — those whose process ended before they did; a live process ends its own on
 * time and deletes their rows itself.
 *
 * The sweep deletes at most SWEEP_BATCH sessions per statement, statement after statement until
 * none is left, every SWEEP_INTERVAL_MS; `close()` stops it. Every process on the database may
 * sweep: a row deleted twice is deleted once.
 */
import type { Sql } from "postgres";
import type { KeyValueStore } from "../shared/storage/KeyValueStore.ts";
import { PgStorage } from "./PgStorage.ts";

/** The key under which a session keeps its record, whose `expiresAt` is its deadline. */
const RECORD_KEY = "session";
/** Sessions deleted by one statement of the sweep: a long backlog goes in batches, none holding locks for long. */
export const SWEEP_BATCH = 500;
/** How often expired sessions are swept. */
export const SWEEP_INTERVAL_MS = 60_000;
/** Sessions loaded at start, at most: past it, the rest are loaded on their next request (`SessionHost` loads on use). */
export const MAX_RESTORED_SESSIONS = 10_000;

export class PgSessions {
  readonly #sql: Sql;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** One session's storage: `PgStorage.session`, with the record's deadline copied to its owner row. */
  storageFor(id: string): KeyValueStore {
    const storage = PgStorage.session(this.#sql, id);
    const sql = this.#sql;
    return {
      get: (key) => storage.get(key),
      list: (prefix, limit) => storage.list(prefix, limit),
      delete: (key) => storage.delete(key),
      deleteAll: () => storage.deleteAll(),
      async put(key, value) {
        await storage.put(key, value);
        if (key !== RECORD_KEY) return;
        const expiresAt = (value as { expiresAt?: unknown } | undefined)?.expiresAt;
        const at = typeof expiresAt === "number" && Number.isFinite(expiresAt) ? new Date(expiresAt) : null;
        await sql`UPDATE mcp_sessions SET expires_at = ${at} WHERE id = ${id}`;
      },
    };
  }

  /** The sessions not past their deadline, at most MAX_RESTORED_SESSIONS, soonest to expire last. */
  async ids(): Promise<string[]> {
    const rows = await this.#sql<{ id: string }[]>`
      SELECT id FROM mcp_sessions WHERE expires_at IS NULL OR expires_at > now()
      ORDER BY expires_at DESC NULLS FIRST LIMIT ${MAX_RESTORED_SESSIONS}`;
    return rows.map((row) => row.id);
  }

  /** Deletes every session past its deadline (and, with them, their entries), in batches; resolves with how many. */
  async sweep(): Promise<number> {
    let swept = 0;
    for (;;) {
      const deleted = await this.#sql`
        DELETE FROM mcp_sessions WHERE id IN (
          SELECT id FROM mcp_sessions WHERE expires_at <= now() ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`;
      swept += deleted.count;
      if (deleted.count < SWEEP_BATCH) return swept;
    }
  }

  /** Sweeps now and every `intervalMs` until `close()`; a failed sweep is reported and tried again at the next. */
  startSweeping(onError: (error: unknown) => void, intervalMs = SWEEP_INTERVAL_MS): void {
    const sweep = () => void this.sweep().catch(onError);
    this.#timer ??= setInterval(sweep, intervalMs);
    sweep();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
