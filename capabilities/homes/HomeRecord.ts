/**
 * What a home keeps about itself, and the key layout of every home's storage:
 *
 * | key | what |
 * |---|---|
 * | `home` | the `HomeRecord`: whose home it is, when it was made and last used, what it holds |
 * | `data:<key>` | the handlers' values (`ctx.storage`), under their own keys |
 * | `share:<resource>:<id>` | a fair share its client holds (a `Holding`, `shares/Shares.ts`): on Workers a session or a task, on every host a handle; until when, how many bytes |
 *
 * A home exists from its first write: a call that only reads leaves nothing, so a handle opened
 * by a call that stored nothing was never made. Its record is written with every write, in the
 * same transaction, so the counts are always those of what is stored. It ends when unused for
 * HOME_RETENTION_MS (an alarm, `HomeHost.wake`), or when its user's data is erased: every key and
 * the alarm go. A handle's home takes a share of its client's handles at its first write, held in
 * the client's home (`share:handle:<id>`) until it ends: that holding is also the index by which
 * erasing a user erases the handles minted for them. Its holdings (the client's sessions and tasks, counted for fair shares) lapse by
 * themselves; a home that holds nothing else is deleted once the last has lapsed, and retention
 * waits for those still live.
 */

export const RECORD_KEY = "home";
export const DATA_PREFIX = "data:";

export interface HomeRecord {
  kind: "user" | "handle";
  /** The digest of the principal it belongs to (`Caller.owner`); null for a handle minted without authorization, which anyone holding it may use. */
  owner: string | null;
  createdAt: number;
  /** Its last use (a handler ran there, or wrote): retention counts from here. Pushed at most once per `TOUCH_INTERVAL_MS` by reads alone. */
  usedAt: number;
  /** Keys stored under `data:`. */
  keys: number;
  /** Bytes those keys and values take (`storedSize`). */
  bytes: number;
  /** A handle's: its id, the definition that minted it (no other may use it), and whose fair share of handles it holds (`clientKey`). */
  handle?: { id: string; definition: string; client: string };
}

export const SHARE_PREFIX = "share:";
