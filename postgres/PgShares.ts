/**
 * Fair shares counted in PostgreSQL, for what the processes on one database hold together: one
 * row per holding in `mcp_shares` (resource, client, id; the client's network; until when; how
 * many bytes). The bounds are `LocalShares`'s (`ShareLimits`), counted across every process on the
 * database: a client holds its share once in the fleet, not once per process, and the totals
 * (MAX_SESSIONS, MAX_TASKS, MAX_TASK_BYTES) are the fleet's.
 *
 * A new holding is taken in one transaction behind two transaction-scoped advisory locks, always
 * in this order: its client's (per resource), then the resource's total. So two processes cannot
 * both take a client's last slot, nor the total's last one; a client past its own share is
 * refused before it queues for the total's lock. Under it, `mcp_share_totals` (what the table
 * holds, lapsed rows included) says at once whether the total is far from crowded; only past
 * that are the live holdings counted. Renewing a holding that has not lapsed is one
 * statement with no lock and no check (it is not a new one), and so is counting one that exists
 * (`held`).
 *
 * Holdings past their `until` no longer count; `PgShares.sweep` deletes their rows, in batches of
 * SWEEP_BATCH (`postgresStore` runs it every SWEEP_INTERVAL_MS). A holding released is deleted at
 * once. Times are the processes' clocks (a holding's `until` is): they must agree to well within
 * a holding's lifetime, as a fleet's clocks kept by NTP do.
 */
import type { Sql, TransactionSql } from "postgres";
import type { Config } from "../shared/config/readConfig.ts";
import { type Checked, PASSED, refused } from "../shared/errors/Checked.ts";
import { networkOf } from "../shared/shares/clientKey.ts";
import { CROWDED_SHARE, checkShare, type ShareLimit, shareLimits } from "../shared/shares/ShareLimits.ts";
import type { ShareClaim, ShareResource, Shares } from "../shared/shares/Shares.ts";

/** Lapsed holdings deleted by one statement of the sweep: a backlog goes in batches, none holding locks for long. */
export const SWEEP_BATCH = 500;
/** How often each process sweeps lapsed holdings. */
export const SWEEP_INTERVAL_MS = 60_000;
/** The latest epoch ms a `Date` holds: an `until` past it is kept as none (until released). */
const LATEST_MS = 8.64e15;

interface Tally {
  count: number;
  bytes: number;
}

export class PgShares implements Shares {
  readonly #sql: Sql;
  readonly #limits: Record<ShareResource, ShareLimit>;

  /** The table comes from `migrate`. */
  constructor(sql: Sql, config: Config) {
    this.#sql = sql;
    this.#limits = shareLimits(config);
  }

  async acquire(resource: ShareResource, client: string, id: string, claim: ShareClaim = {}, now = Date.now()): Promise<Checked<void>> {
    const holding = { resource, client, id, until: dateOf(claim.until), bytes: claim.bytes ?? 0, at: new Date(now) };
    if (await renew(this.#sql, holding)) return PASSED;
    if (claim.held) {
      await insert(this.#sql, holding);
      return PASSED;
    }
    const refusal = await this.#sql.begin(async (tx) => {
      // Each lock a statement of its own: a statement reads what was committed when it began, so
      // the counts after it see what the lock's previous holder wrote.
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`share:${resource}:${client}`}, 0))`;
      // Taken meanwhile, under the same id, by another call of this client: a renewal after all.
      if (await renew(tx, holding)) return undefined;
      const limit = this.#limits[resource];
      const [mine] = await tx<Tally[]>`
        SELECT count(*)::integer AS count, coalesce(sum(bytes), 0)::float8 AS bytes FROM mcp_shares
        WHERE resource = ${resource} AND client = ${client} AND (until IS NULL OR until > ${holding.at})`;
      const own = checkShare(limit, mine!, undefined, holding.bytes);
      if (own) return own;
      await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`shares:${resource}`}, 0))`;
      // Far from full even counting what lapsed and is not swept yet: no bound or room for newcomers applies.
      const [rows] = await tx<Tally[]>`SELECT holdings::float8 AS count, bytes::float8 AS bytes FROM mcp_share_totals WHERE resource = ${resource}`;
      if (roomy(limit, rows ?? { count: 0, bytes: 0 }, holding.bytes)) {
        await insert(tx, holding);
        return undefined;
      }
      const network = networkOf(client);
      const [all] = await tx<(Tally & { networkCount: number; networkBytes: number })[]>`
        SELECT count(*)::integer AS count, coalesce(sum(bytes), 0)::float8 AS bytes,
               (count(*) FILTER (WHERE network = ${network}))::integer AS "networkCount",
               coalesce(sum(bytes) FILTER (WHERE network = ${network}), 0)::float8 AS "networkBytes"
        FROM mcp_shares WHERE resource = ${resource} AND (until IS NULL OR until > ${holding.at})`;
      const neighbours = network === client ? undefined : { count: all!.networkCount, bytes: all!.networkBytes };
      const over = checkShare(limit, mine!, { count: all!.count, bytes: all!.bytes }, holding.bytes, neighbours);
      if (over) return over;
      await insert(tx, holding);
      return undefined;
    });
    return refusal ? refused(refusal) : PASSED;
  }

  async release(resource: ShareResource, client: string, id: string): Promise<void> {
    await this.#sql`DELETE FROM mcp_shares WHERE resource = ${resource} AND client = ${client} AND id = ${id}`;
  }

  /** What `client` holds of `resource` now (for tests and the operator). */
  async held(resource: ShareResource, client: string, now = Date.now()): Promise<Tally> {
    const [tally] = await this.#sql<Tally[]>`
      SELECT count(*)::integer AS count, coalesce(sum(bytes), 0)::float8 AS bytes FROM mcp_shares
      WHERE resource = ${resource} AND client = ${client} AND (until IS NULL OR until > ${new Date(now)})`;
    return tally!;
  }

  /** Deletes every holding past its `until`, in batches; resolves with how many. Any process may sweep: a row deleted twice is deleted once. */
  static async sweep(sql: Sql, now = Date.now()): Promise<number> {
    let swept = 0;
    for (;;) {
      const deleted = await sql`
        DELETE FROM mcp_shares WHERE (resource, client, id) IN (
          SELECT resource, client, id FROM mcp_shares WHERE until <= ${new Date(now)} ORDER BY until LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`;
      swept += deleted.count;
      if (deleted.count < SWEEP_BATCH) return swept;
    }
  }
}

interface Row {
  resource: ShareResource;
  client: string;
  id: string;
  until: Date | null;
  bytes: number;
  /** Now, by the process's clock: what has lapsed by then does not count. */
  at: Date;
}

/** Renews the holding if it is there and has not lapsed; whether it was. */
async function renew(sql: Sql | TransactionSql, row: Row): Promise<boolean> {
  const renewed = await sql`
    UPDATE mcp_shares SET until = ${row.until}, bytes = ${row.bytes}
    WHERE resource = ${row.resource} AND client = ${row.client} AND id = ${row.id} AND (until IS NULL OR until > ${row.at})`;
  return renewed.count > 0;
}

/** Writes the holding, over a lapsed one of the same id if the sweep has not deleted it yet. */
async function insert(sql: Sql | TransactionSql, row: Row): Promise<void> {
  await sql`
    INSERT INTO mcp_shares (resource, client, id, network, until, bytes)
    VALUES (${row.resource}, ${row.client}, ${row.id}, ${networkOf(row.client)}, ${row.until}, ${row.bytes})
    ON CONFLICT (resource, client, id) DO UPDATE SET until = excluded.until, bytes = excluded.bytes`;
}

/** Whether a claim of `bytes` leaves a total below the share from which it is crowded (`CROWDED_SHARE`), given at least what is held: then `checkShare` passes whatever the exact counts. */
function roomy(limit: ShareLimit, atLeast: Tally, bytes: number): boolean {
  const count = limit.total === undefined || atLeast.count + 1 <= limit.total * CROWDED_SHARE;
  return count && (limit.totalBytes === undefined || atLeast.bytes + bytes <= limit.totalBytes * CROWDED_SHARE);
}

/** A holding's `until` as the column keeps it: none (and any time past a `Date`'s reach) is null, until released. */
function dateOf(until: number | undefined): Date | null {
  return until === undefined || !(Math.abs(until) <= LATEST_MS) ? null : new Date(until);
}
