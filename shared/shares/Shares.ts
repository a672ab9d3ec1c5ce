/**
 * Fair shares: every resource a client can make the server hold is bounded per client
 * as well as in total, so one client cannot take everyone's share. A client is the signed-in
 * principal (its digest), or, without authorization, its network address (`clientKey`).
 *
 * | resource | held from | until | per client | in total |
 * |---|---|---|---|---|
 * | `session` | its creation | it ends (or its deadline, if its end is never told) | MAX_SESSIONS_PER_CLIENT | MAX_SESSIONS, in a process or across a store's processes |
 * | `task` | its creation | it is cancelled, or deleted at its TTL | MAX_TASKS_PER_CLIENT, and MAX_TASK_BYTES_PER_CLIENT of stored arguments | MAX_TASKS and MAX_TASK_BYTES, the same |
 * | `handle` | its home's first write | its home is erased (retention, revocation, its user's erasure) | MAX_HANDLES_PER_CLIENT | MAX_HANDLES, where homes are in memory |
 *
 * Open listens are counted by `OpenListens`, per client and per isolate or process, since that is
 * what a listen holds. A refusal is a 429 with `Retry-After` and a sentence naming the limit.
 * Where a total is counted, room is kept for newcomers past half of it (`ShareLimits.ts`).
 *
 * Where the counts live: in the store, across the processes on it
 * (`Store.shares`: PostgreSQL's `PgShares`, Deno KV's `KvShares`); else this process
 * (`LocalShares`: Node or Deno without a store, stdio); on Workers, the client's home object — the
 * user's own, or one per client address (`capabilities/homes/durable/durableShares.ts`), with no
 * total.
 */
import type { Checked } from "../errors/Checked.ts";

export type ShareResource = "session" | "task" | "handle";

/** What one holding claims: until when at most (its deadline, if its release is never told), and how many bytes. */
/** One share held: until when at most (epoch ms, after which it lapses by itself) and how many bytes it claims. */
export interface Holding {
  until: number;
  bytes: number;
}

export interface ShareClaim {
  /** Epoch ms after which the holding lapses by itself; none: until released. */
  until?: number;
  bytes?: number;
  /** The holding exists already (a restarted process counting what it held): counted whatever the bounds, never refused. */
  held?: boolean;
}

export interface Shares {
  /** Takes one `resource` for `client` under `id` (taking it again renews it); the 429 refusal past the client's share or the total. */
  acquire(resource: ShareResource, client: string, id: string, claim?: ShareClaim): Promise<Checked<void>>;
  /** Gives it back; harmless for a holding already gone. */
  release(resource: ShareResource, client: string, id: string): Promise<void>;
}
