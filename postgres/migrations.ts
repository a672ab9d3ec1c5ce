/**
 * The store's tables, as ordered migrations: each runs once, in one transaction with every other
 * pending one (`migrate`), and a database records the last it ran in `mcp_schema`. A migration is
 * never edited once released: a change to the schema is a new migration at the end.
 *
 * Layout: an owner table per kind of state, one row per session or home, and an entries table per
 * kind (its key-value rows, keys in byte order, values V8-serialized as the other backends store
 * them), whose rows go with their owner's (`ON DELETE CASCADE`): deleting an owner row, or
 * sweeping the expired ones, leaves none of its entries behind.
 * - `mcp_sessions.expires_at`: when the session ends unless used again; past it, its rows may be
 *   swept by any process.
 * - `mcp_homes.wake_at`: when the home is next due to wake (its retention, a holding's lapse), the
 *   index `HomeExpiries` keeps elsewhere. Not a deletion time: what a due home does is its host's
 *   to decide (`HomeHost.wake`), so nothing sweeps homes by it.
 * - `mcp_tasks`: a task's row (its entries: its state, its call, its answers and its result, as
 *   `TaskHost` keeps them), with `owner` (its creator's principal digest, for erasure), `wake_at`
 *   (its one wakeup: a run due, a lapsed run's restart, its TTL), `lease_owner` and `lease_until`
 *   (the process that claimed the wakeup, and until when; a run renews it, and once it lapses
 *   another process may claim the task), and `expires_at` (its TTL: past it, any process deletes
 *   the row, and its entries with it).
 * - `mcp_change_messages`: a change too large for a notification's payload, which the notification
 *   points to (`PgBroadcaster`); read by every listening process at once, and swept by its
 *   publisher once every process has had time to read it. Unlogged: a crash of the server may
 *   empty it, and its readers then tell their listeners to read again, as for any lost change.
 * - `mcp_processes`: the fleet (`PgFleet`): one row per process that joined, with `alive_until`
 *   (its lease, renewed by its heartbeat; in the database's clock, so skewed hosts agree). A row
 *   past its lease for longer than a lease again is swept by any live process, and what refers to
 *   it goes with it (`ON DELETE CASCADE`).
 * - `mcp_session_holders`: which process holds each 2025 session (one row per held session).
 * - `mcp_fleet_messages`: a message between processes too large for a notification's payload,
 *   which the notification to its receiver points to; the receiver deletes it as it reads it.
 *   Unlogged: a crash of the server may empty it, and messages are at-most-once anyway.
 * - `mcp_shares`: one row per fair share a client holds (`PgShares`), with its client's
 *   `network` (`networkOf`, for the room kept for newcomers), `until` (past it the holding no
 *   longer counts and any process may sweep the row; none: until released) and `bytes`.
 * - `mcp_share_totals`: per resource, how many rows `mcp_shares` has and their bytes, kept by its
 *   triggers in the same transaction as every write there (a resource with none has no row): at
 *   least what is live, so a total far from full is known without counting the holdings.
 */

export interface Migration {
  /** 1, 2, 3…: its place in the order, recorded in `mcp_schema` once run. */
  readonly version: number;
  /** What it does, in a few words (recorded beside the version). */
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions and homes with their entries",
    sql: `
      CREATE TABLE mcp_sessions (
        id text PRIMARY KEY,
        expires_at timestamptz
      );
      CREATE TABLE mcp_session_entries (
        owner text NOT NULL REFERENCES mcp_sessions (id) ON DELETE CASCADE,
        key text COLLATE "C" NOT NULL,
        value bytea NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX mcp_sessions_expires_at ON mcp_sessions (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE mcp_homes (
        id text PRIMARY KEY,
        wake_at timestamptz
      );
      CREATE TABLE mcp_home_entries (
        owner text NOT NULL REFERENCES mcp_homes (id) ON DELETE CASCADE,
        key text COLLATE "C" NOT NULL,
        value bytea NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX mcp_homes_wake_at ON mcp_homes (wake_at) WHERE wake_at IS NOT NULL;
    `,
  },
  {
    version: 2,
    name: "tasks with their entries and leases",
    sql: `
      CREATE TABLE mcp_tasks (
        id text PRIMARY KEY,
        owner text,
        wake_at timestamptz,
        lease_owner text,
        lease_until timestamptz,
        expires_at timestamptz
      );
      CREATE TABLE mcp_task_entries (
        owner text NOT NULL REFERENCES mcp_tasks (id) ON DELETE CASCADE,
        key text COLLATE "C" NOT NULL,
        value bytea NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX mcp_tasks_wake_at ON mcp_tasks (wake_at) WHERE wake_at IS NOT NULL;
      CREATE INDEX mcp_tasks_expires_at ON mcp_tasks (expires_at NULLS FIRST);
      CREATE INDEX mcp_tasks_owner ON mcp_tasks (owner) WHERE owner IS NOT NULL;
    `,
  },
  {
    version: 3,
    name: "change messages too large to notify",
    sql: `
      CREATE UNLOGGED TABLE mcp_change_messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        publisher text NOT NULL,
        topic text NOT NULL,
        message text NOT NULL,
        published_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX mcp_change_messages_published_at ON mcp_change_messages (published_at);
      CREATE INDEX mcp_change_messages_publisher ON mcp_change_messages (publisher);
    `,
  },
  {
    version: 4,
    name: "the fleet: processes, session holders and messages between them",
    sql: `
      CREATE TABLE mcp_processes (
        id text PRIMARY KEY,
        alive_until timestamptz NOT NULL
      );
      CREATE INDEX mcp_processes_alive_until ON mcp_processes (alive_until);
      CREATE TABLE mcp_session_holders (
        session_id text PRIMARY KEY,
        holder text NOT NULL REFERENCES mcp_processes (id) ON DELETE CASCADE
      );
      CREATE INDEX mcp_session_holders_holder ON mcp_session_holders (holder);
      CREATE UNLOGGED TABLE mcp_fleet_messages (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        to_process text NOT NULL REFERENCES mcp_processes (id) ON DELETE CASCADE,
        message text NOT NULL
      );
      CREATE INDEX mcp_fleet_messages_to_process ON mcp_fleet_messages (to_process, id);
    `,
  },
  {
    version: 5,
    name: "fair shares",
    sql: `
      CREATE TABLE mcp_shares (
        resource text NOT NULL,
        client text NOT NULL,
        id text NOT NULL,
        network text NOT NULL,
        until timestamptz,
        bytes bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (resource, client, id)
      );
      CREATE INDEX mcp_shares_until ON mcp_shares (until) WHERE until IS NOT NULL;
      CREATE TABLE mcp_share_totals (
        resource text PRIMARY KEY,
        holdings bigint NOT NULL,
        bytes bigint NOT NULL
      );
      CREATE FUNCTION mcp_share_totals_follow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO mcp_share_totals AS t (resource, holdings, bytes) VALUES (NEW.resource, 1, NEW.bytes)
          ON CONFLICT (resource) DO UPDATE SET holdings = t.holdings + 1, bytes = t.bytes + NEW.bytes;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE mcp_share_totals SET holdings = holdings - 1, bytes = bytes - OLD.bytes WHERE resource = OLD.resource;
          DELETE FROM mcp_share_totals WHERE resource = OLD.resource AND holdings <= 0;
        ELSIF TG_OP = 'UPDATE' THEN
          UPDATE mcp_share_totals SET bytes = bytes + NEW.bytes - OLD.bytes WHERE resource = NEW.resource;
        ELSE
          DELETE FROM mcp_share_totals;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER mcp_share_totals_rows AFTER INSERT OR DELETE ON mcp_shares FOR EACH ROW EXECUTE FUNCTION mcp_share_totals_follow();
      CREATE TRIGGER mcp_share_totals_bytes AFTER UPDATE OF bytes ON mcp_shares FOR EACH ROW WHEN (OLD.bytes IS DISTINCT FROM NEW.bytes) EXECUTE FUNCTION mcp_share_totals_follow();
      CREATE TRIGGER mcp_share_totals_emptied AFTER TRUNCATE ON mcp_shares FOR EACH STATEMENT EXECUTE FUNCTION mcp_share_totals_follow();
    `,
  },
];
