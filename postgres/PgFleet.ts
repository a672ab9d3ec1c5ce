/**
 * The processes on one PostgreSQL database as a `Fleet`: a lease per process, a holder per 2025
 * session, and messages between processes. Every time is the database's (`now()`), so hosts whose
 * clocks disagree still agree on who is alive.
 *
 * - Lease: `join` writes this process's row of `mcp_processes`, and a heartbeat every
 *   `heartbeatMs` moves its `alive_until` to `ttlMs` ahead. A renewal that finds the row gone
 *   (swept, or deleted by hand) or already past its lease, or no renewal for `ttlMs` (the
 *   database out of reach), expels this process: `member.expelled()` is called once, the
 *   heartbeat stops, and the row is deleted if it can be. An expelled process stays out: it claims
 *   no session (`holder` rejects) and hears only what was sent before; coming back is joining as a
 *   new process, a new `PgFleet`.
 * - Holders: one row per held session. `holder` reads the live holder, and when there is none
 *   claims the session in one statement that keeps a live holder over its own claim, so that two
 *   processes asking at once get the same answer.
 * - Messages: a `NOTIFY` on the receiver's own channel (`mcp_fleet_<id>`). One too large for a
 *   payload is a row of `mcp_fleet_messages` written in the transaction that notifies where it is;
 *   the receiver deletes it as it reads it. Sends to one receiver go one after another, each once
 *   the one before committed, and the receiver handles what it hears strictly in order (a row's
 *   read holds up what follows), so order per sender and receiver holds whatever the sizes. After
 *   its listening connection came back, a receiver reads the rows addressed to it: their
 *   notifications may have been lost; inline messages lost then are lost (at most once).
 * - What ends leaves no row: `leave()` deletes this process's row, and with it (`ON DELETE
 *   CASCADE`) its holders and its unread messages; a killed process's row, once past its lease for
 *   another `ttlMs`, is swept by the heartbeat of any live process, with the same cascade.
 *
 * Bounds: a message is at most MAX_FLEET_MESSAGE_BYTES; a receiver holds at most
 * MAX_PENDING_MESSAGES notifications while it reads a row, past which it drops what it hears (and
 * the rows they name), reported to `onError`; a heartbeat sweeps at most SWEPT_PROCESSES_PER_HEARTBEAT.
 */
import type { Sql, TransactionSql } from "postgres";
import { utf8Length } from "../shared/bytes/utf8Length.ts";
import { type Fleet, type FleetMember, HEARTBEAT_MS, MAX_FLEET_MESSAGE_BYTES, PROCESS_TTL_MS } from "../shared/runtime/Fleet.ts";
import { MAX_PAYLOAD_BYTES, PgChannel, type Subscription } from "./PgChannel.ts";

/** Notifications a receiver holds while it reads a stored message; past it, what it hears is dropped. */
export const MAX_PENDING_MESSAGES = 1_000;
/** Dead processes one heartbeat deletes, at most: a long backlog goes over several heartbeats. */
export const SWEPT_PROCESSES_PER_HEARTBEAT = 100;
/** Each process's channel: this prefix and its id. */
const CHANNEL_PREFIX = "mcp_fleet_";
/** A payload that is the message itself starts with this; one that names a row, with ROW_MARK. */
const INLINE_MARK = ".";
const ROW_MARK = "#";
/** What the queue of heard payloads holds to say "read every row addressed here" (not a payload: those start with a mark). */
const READ_ALL = "";
/** PostgreSQL's code for a foreign key violated: the process named is not (or no longer) in the fleet. */
const FOREIGN_KEY_VIOLATION = "23503";

export interface PgFleetOptions {
  /** How often the lease is renewed. Default HEARTBEAT_MS. */
  heartbeatMs?: number;
  /** How long a lease lasts past its renewal; more than `heartbeatMs`. Default PROCESS_TTL_MS. */
  ttlMs?: number;
  /** Where failed renewals, sweeps and dropped messages are reported. Default: stderr. */
  onError?(error: unknown): void;
}

/**
 * @example
 * const fleet = new PgFleet(sql);
 * await fleet.join({ receive: (message) => carry(message), expelled: () => stopServing() });
 * if ((await fleet.holder(sessionId)) === fleet.self) serveHere(); else await fleet.send(holder, request);
 * // … at shutdown, before sql.end():
 * await fleet.leave();
 */
export class PgFleet implements Fleet {
  /** Thirty-two hex digits: with CHANNEL_PREFIX, well within a channel name's 63 bytes. */
  readonly self = crypto.randomUUID().replaceAll("-", "");
  readonly #sql: Sql;
  readonly #heartbeatMs: number;
  readonly #ttlMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #channel: PgChannel;
  /** Per receiver, the send under way last: the next one starts once it committed. */
  readonly #sending = new Map<string, Promise<void>>();
  readonly #pending: string[] = [];
  #member: FleetMember | undefined;
  #subscription: Subscription | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  /** When the lease was last renewed (`performance.now()`). */
  #renewedAt = 0;
  #renewing = false;
  #draining = false;
  #expelled = false;
  #left = false;

  constructor(sql: Sql, options: PgFleetOptions = {}) {
    this.#sql = sql;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#ttlMs = options.ttlMs ?? PROCESS_TTL_MS;
    if (!(this.#heartbeatMs > 0 && this.#ttlMs > this.#heartbeatMs)) {
      throw new RangeError(`A fleet's lease must outlast its heartbeat: ttlMs ${this.#ttlMs} is not more than heartbeatMs ${this.#heartbeatMs}`);
    }
    this.#onError = options.onError ?? ((error) => console.error(`The PostgreSQL fleet (process ${this.self}): ${error instanceof Error ? error.message : String(error)}`));
    this.#channel = new PgChannel(sql, CHANNEL_PREFIX + this.self);
  }

  async join(member: FleetMember): Promise<void> {
    if (this.#member || this.#left) throw new Error(`Process ${this.self} has joined its fleet already: make a new PgFleet to join again`);
    this.#member = member;
    // Listening first: a message sent once the row below exists is heard.
    this.#subscription = await this.#channel.subscribe(this.#heard, () => this.#heard(READ_ALL));
    try {
      await this.#sql`INSERT INTO mcp_processes (id, alive_until) VALUES (${this.self}, now() + make_interval(secs => ${this.#ttlMs / 1_000}))`;
    } catch (error) {
      this.#left = true;
      await this.#subscription.unsubscribe().catch(() => {});
      throw error;
    }
    this.#renewedAt = performance.now();
    this.#heartbeat = setInterval(this.#beat, this.#heartbeatMs);
    // Not a reason for the process to stay up: its lease lapses without it.
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  async holder(sessionId: string): Promise<string> {
    const [live] = await this.#sql<{ holder: string }[]>`
      SELECT h.holder FROM mcp_session_holders h JOIN mcp_processes p ON p.id = h.holder
      WHERE h.session_id = ${sessionId} AND p.alive_until > now()`;
    if (live) return live.holder;
    try {
      // Under a concurrent claim, ON CONFLICT waits for it and then sees its row: the live claimant is kept.
      const [claimed] = await this.#sql<{ holder: string }[]>`
        INSERT INTO mcp_session_holders AS h (session_id, holder) VALUES (${sessionId}, ${this.self})
        ON CONFLICT (session_id) DO UPDATE SET holder = CASE
          WHEN EXISTS (SELECT 1 FROM mcp_processes p WHERE p.id = h.holder AND p.alive_until > now()) THEN h.holder
          ELSE excluded.holder END
        RETURNING h.holder`;
      return claimed!.holder;
    } catch (error) {
      if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
      throw new Error(`Process ${this.self} is not in its fleet (it has not joined, has left, or was expelled): it cannot hold session ${JSON.stringify(sessionId.slice(0, 200))}`);
    }
  }

  async release(sessionId: string): Promise<void> {
    await this.#sql`DELETE FROM mcp_session_holders WHERE session_id = ${sessionId} AND holder = ${this.self}`;
  }

  async alive(id: string): Promise<boolean> {
    const [row] = await this.#sql<{ alive: boolean }[]>`SELECT EXISTS (SELECT 1 FROM mcp_processes WHERE id = ${id} AND alive_until > now()) AS alive`;
    return row!.alive;
  }

  async send(to: string, message: string): Promise<void> {
    const bytes = utf8Length(message);
    if (bytes > MAX_FLEET_MESSAGE_BYTES) throw new Error(`A message to process ${to.slice(0, 64)} is ${bytes} bytes, over the ${MAX_FLEET_MESSAGE_BYTES} a fleet carries: send it in parts`);
    const sent = (this.#sending.get(to) ?? Promise.resolve()).then(() => this.#post(to, message, bytes));
    const settled = sent.then(
      () => {},
      () => {},
    );
    this.#sending.set(to, settled);
    void settled.then(() => {
      if (this.#sending.get(to) === settled) this.#sending.delete(to);
    });
    return sent;
  }

  async leave(): Promise<void> {
    if (this.#left) return;
    this.#left = true;
    clearInterval(this.#heartbeat);
    this.#pending.length = 0;
    await Promise.all(this.#sending.values());
    await this.#subscription?.unsubscribe();
    // Its holders and unread messages go with it (ON DELETE CASCADE).
    await this.#sql`DELETE FROM mcp_processes WHERE id = ${this.self}`;
  }

  /** One message, inline when it fits in a notification, else as a row the notification names; lost when `to` is not in the fleet. */
  async #post(to: string, message: string, bytes: number): Promise<void> {
    const channel = new PgChannel(this.#sql, CHANNEL_PREFIX + to);
    if (bytes + INLINE_MARK.length <= MAX_PAYLOAD_BYTES) return channel.publish(INLINE_MARK + message);
    try {
      await this.#sql.begin(async (tx: TransactionSql) => {
        const [row] = await tx<{ id: string }[]>`
          INSERT INTO mcp_fleet_messages (to_process, message)
          SELECT ${to}, ${message} WHERE EXISTS (SELECT 1 FROM mcp_processes WHERE id = ${to})
          RETURNING id::text`;
        if (row) await channel.publish(ROW_MARK + row.id, tx);
      });
    } catch (error) {
      // Swept between the check and the insert: gone, as when the check finds it gone.
      if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
    }
  }

  /** The channel's listener: it must not throw (`PgChannel`). */
  readonly #heard = (payload: string): void => {
    if (this.#left) return;
    if (this.#pending.length >= MAX_PENDING_MESSAGES) {
      this.#onError(new Error(`Process ${this.self} holds ${MAX_PENDING_MESSAGES} messages unread: one more is dropped`));
      if (payload.startsWith(ROW_MARK)) void this.#take(payload.slice(ROW_MARK.length)).catch(this.#onError);
      return;
    }
    this.#pending.push(payload);
    if (!this.#draining) void this.#drain();
  };

  /** Hands what was heard to the member, in order: a stored message holds up the ones after it until it is read. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let payload = this.#pending.shift(); payload !== undefined && !this.#left; payload = this.#pending.shift()) {
        try {
          for (const message of await this.#messagesOf(payload)) if (!this.#left) this.#member!.receive(message);
        } catch (error) {
          if (!this.#left) this.#onError(error);
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  async #messagesOf(payload: string): Promise<string[]> {
    if (payload.startsWith(INLINE_MARK)) return [payload.slice(INLINE_MARK.length)];
    if (payload.startsWith(ROW_MARK)) return this.#take(payload.slice(ROW_MARK.length));
    if (payload === READ_ALL) {
      const rows = await this.#sql<{ message: string }[]>`
        WITH taken AS (DELETE FROM mcp_fleet_messages WHERE to_process = ${this.self} RETURNING id, message)
        SELECT message FROM taken ORDER BY id`;
      return rows.map((row) => row.message);
    }
    this.#onError(new Error(`Process ${this.self} heard a notification that is not a fleet message: ${JSON.stringify(payload.slice(0, 80))}`));
    return [];
  }

  /** The stored message `id`, deleted as it is read: none when it was read already (after a reconnection) or swept. */
  async #take(id: string): Promise<string[]> {
    if (!/^\d+$/.test(id)) return [];
    const rows = await this.#sql<{ message: string }[]>`DELETE FROM mcp_fleet_messages WHERE id = ${id}::bigint AND to_process = ${this.self} RETURNING message`;
    return rows.map((row) => row.message);
  }

  /** The heartbeat: renews the lease unless a renewal is under way, and expels this process once it went `ttlMs` without one. */
  readonly #beat = (): void => {
    if (this.#expelled || this.#left) return;
    if (performance.now() - this.#renewedAt >= this.#ttlMs) return this.#expel(new Error(`Process ${this.self} could not renew its lease for ${this.#ttlMs} ms: it leaves the fleet`));
    if (this.#renewing) return;
    this.#renewing = true;
    void this.#renew().finally(() => (this.#renewing = false));
  };

  async #renew(): Promise<void> {
    try {
      const renewed = await this.#sql`
        UPDATE mcp_processes SET alive_until = now() + make_interval(secs => ${this.#ttlMs / 1_000})
        WHERE id = ${this.self} AND alive_until > now()`;
      if (this.#expelled || this.#left) return;
      if (renewed.count === 0) return this.#expel(new Error(`Process ${this.self} found its lease lapsed or gone: it leaves the fleet`));
      this.#renewedAt = performance.now();
    } catch (error) {
      if (!this.#left) this.#onError(error);
      return;
    }
    try {
      // Processes past their lease for another lease are killed ones: their holders and messages go with them.
      await this.#sql`
        DELETE FROM mcp_processes WHERE id IN (
          SELECT id FROM mcp_processes WHERE alive_until < now() - make_interval(secs => ${this.#ttlMs / 1_000})
          LIMIT ${SWEPT_PROCESSES_PER_HEARTBEAT} FOR UPDATE SKIP LOCKED)`;
    } catch (error) {
      if (!this.#left) this.#onError(error);
    }
  }

  /** Once: stops the heartbeat, tells the member, and deletes this process's row if the database can be reached. */
  #expel(reason: Error): void {
    if (this.#expelled) return;
    this.#expelled = true;
    clearInterval(this.#heartbeat);
    this.#onError(reason);
    try {
      this.#member!.expelled();
    } catch (error) {
      this.#onError(error);
    }
    void this.#sql`DELETE FROM mcp_processes WHERE id = ${this.self}`.catch(() => {});
  }
}
