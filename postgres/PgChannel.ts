/**
 * A channel between processes on one database, by `LISTEN`/`NOTIFY`: `publish` sends a short text
 * to every process subscribed to the channel now (this one included), `subscribe` hears them. A
 * notification is delivered once the publishing transaction commits, in commit order, and only to
 * listeners connected at that moment: it is a wake-up, not a record. What must not be lost is
 * written to a table first and the channel only says where to look.
 *
 * The driver listens on a connection of its own and, when that connection drops, connects again
 * (backing off) and listens again. What was published in between is not heard, so a subscriber
 * gives `resubscribed`, called after each new `LISTEN`, to read again what it may have missed.
 *
 * A listener must not throw: it is called from the driver's connection, which an error would end.
 *
 * Payloads are bounded: PostgreSQL refuses a NOTIFY payload of 8000 bytes or more, so `publish`
 * refuses one over `MAX_PAYLOAD_BYTES` (UTF-8) itself, with a sentence naming the size, before
 * anything is sent. Channel names are identifiers: at most `MAX_CHANNEL_BYTES`.
 */
import type { Sql, TransactionSql } from "postgres";
import { utf8Length } from "../shared/bytes/utf8Length.ts";

/** The largest payload PostgreSQL delivers by default: below 8000 bytes. */
export const MAX_PAYLOAD_BYTES = 7_999;
/** The longest channel name: PostgreSQL's identifiers are cut at 63 bytes, which would merge channels. */
export const MAX_CHANNEL_BYTES = 63;

export interface Subscription {
  /** Stops hearing the channel; the driver stops listening when no subscriber is left. */
  unsubscribe(): Promise<void>;
}

/**
 * @example
 * const changes = new PgChannel(sql, "mcp_changes");
 * const subscription = await changes.subscribe((topic) => fanOut(topic), () => rereadChanges());
 * await changes.publish("notebook:42");
 */
export class PgChannel {
  readonly #sql: Sql;
  readonly name: string;

  constructor(sql: Sql, name: string) {
    if (name.length === 0 || utf8Length(name) > MAX_CHANNEL_BYTES) throw new Error(`A channel's name is 1 to ${MAX_CHANNEL_BYTES} bytes; "${name.slice(0, 80)}" is ${utf8Length(name)}`);
    this.#sql = sql;
    this.name = name;
  }

  /**
   * Sends `payload` to the channel's subscribers when the statement commits: at once, or, given
   * the transaction `within`, when it commits (and never if it rolls back), so that a row and the
   * notification saying where it is are seen together.
   * @throws when it is over MAX_PAYLOAD_BYTES
   */
  async publish(payload: string, within?: TransactionSql): Promise<void> {
    const bytes = utf8Length(payload);
    if (bytes > MAX_PAYLOAD_BYTES) {
      throw new Error(`A notification on "${this.name}" is ${bytes} bytes, over the ${MAX_PAYLOAD_BYTES} PostgreSQL delivers: store the payload and publish where to find it`);
    }
    const sql = within ?? this.#sql;
    await sql`SELECT pg_notify(${this.name}, ${payload})`;
  }

  /**
   * Calls `listener` with each payload published from now on, until unsubscribed.
   * @param resubscribed called after the listening connection dropped and listens again: what was published meanwhile was not heard
   */
  async subscribe(listener: (payload: string) => void, resubscribed?: () => void): Promise<Subscription> {
    // The driver's `unlisten` misses a listener it registered again after a reconnection, so
    // this subscription also ends itself: once unsubscribed, nothing more reaches `listener`.
    let active = true;
    let first = true;
    const { unlisten } = await this.#sql.listen(
      this.name,
      (payload) => active && listener(payload),
      () => {
        if (first) first = false;
        else if (active) resubscribed?.();
      },
    );
    return {
      async unsubscribe() {
        active = false;
        await unlisten();
      },
    };
  }
}
