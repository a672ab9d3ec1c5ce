/**
 * The `Broadcaster` of processes on one PostgreSQL database (Node, self-hosted Deno): a change
 * published by any of them reaches the subscribers of every one, through one channel
 * (`PgChannel`, `LISTEN`/`NOTIFY`) for all of the server's topics. Each process hands what it
 * hears to its own subscribers (`FanOut`, bounded per subscriber as in memory), its own changes
 * included, so every process sees one topic's changes in the one order they were committed.
 *
 * A notification's payload names the topic and carries the message. One too large for a payload
 * (PostgreSQL's limit, `MAX_PAYLOAD_BYTES`: a task's result, a resource's long URI) is written as a
 * row of `mcp_change_messages` in the transaction that notifies where it is, so it is never heard
 * before it can be read; a process reads it only when someone there subscribes to its topic. Rows
 * are kept STORED_MESSAGE_TTL_MS (a reader reads at once: this is room for a slow one), swept by
 * their publisher's timer and by every later large publish, and a closing publisher removes its
 * own (once the newest is CLOSE_GRACE_MS old, so readers have had it): what ends leaves no row. Why rows rather than a refusal: the messages over the limit are
 * ones a handler cannot shorten (a task's result up to MAX_TASK_VALUE_BYTES, a URI the server
 * accepts), and a refusal would lose them; past `maxBytes` (what a subscriber may hold unread) a
 * message is refused with a sentence, as no subscriber could take it.
 *
 * Lost changes are said, not hidden: after the listening connection dropped (`resubscribed`), when
 * a stored message was gone before it was read, and when this process falls MAX_PENDING_NOTIFICATIONS
 * behind while reading stored ones, every topic concerned is told to read again (`FanOut.missed`).
 */
import type { Sql } from "postgres";
import type { Broadcaster } from "../../../shared/broadcast/Broadcaster.ts";
import { utf8Length } from "../../../shared/bytes/utf8Length.ts";
import type { Logger } from "../../../shared/log/Logger.ts";
import { MAX_PAYLOAD_BYTES, PgChannel } from "../../../postgres/PgChannel.ts";
import { FanOut } from "../FanOut.ts";

/** The channel every process of a server listens on. */
export const CHANGES_CHANNEL = "mcp_changes";
/** How long a stored message is kept for the processes to read it, in milliseconds. */
export const STORED_MESSAGE_TTL_MS = 60_000;
/** Notifications one process holds while it reads stored messages; past it they are dropped and every topic is told to read again. */
export const MAX_PENDING_NOTIFICATIONS = 1_000;
/** How old the newest row of a closing publisher must be before it removes its rows, in milliseconds: room for the readers that were told of it. */
export const CLOSE_GRACE_MS = 1_000;
/** Characters of a topic shown in a refusal. */
const SHOWN_TOPIC_CHARS = 200;

export interface PgBroadcasterOptions {
  /** Unread bytes each subscriber may hold (`MAX_QUEUE_BYTES`), and the largest message published. */
  maxBytes: number;
  /** Where lost changes and unreadable notifications are reported. */
  logger?: Logger;
  /** Default STORED_MESSAGE_TTL_MS. */
  storedMessageTtlMs?: number;
  /** Default CHANGES_CHANNEL: processes of one server share it, and only they. */
  channel?: string;
  /** Default MAX_PENDING_NOTIFICATIONS. */
  maxPendingNotifications?: number;
}

/** A notification's payload: a message inline, or the row holding one (with its topic when that fits). */
type Payload = { t: string; m: object } | { r: string; t?: string };

/**
 * @example
 * const broadcast = new PgBroadcaster(sql, { maxBytes: config.maxQueueBytes, logger });
 * // … a runtime built with it; at shutdown, before sql.end():
 * await broadcast.close();
 */
export class PgBroadcaster implements Broadcaster {
  readonly #sql: Sql;
  readonly #channel: PgChannel;
  readonly #fanOut: FanOut;
  readonly #maxBytes: number;
  readonly #ttlMs: number;
  readonly #logger: Logger | undefined;
  readonly #maxPending: number;
  /** Marks the rows this process stored, so that it sweeps and, closing, removes them. */
  readonly #publisher = crypto.randomUUID();
  readonly #pending: string[] = [];
  #draining = false;
  #sweeper: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** When this process last stored a message (`Date.now()`), if it has. */
  #lastStoredAt = -Infinity;

  constructor(sql: Sql, options: PgBroadcasterOptions) {
    this.#sql = sql;
    this.#channel = new PgChannel(sql, options.channel ?? CHANGES_CHANNEL);
    this.#maxBytes = options.maxBytes;
    this.#ttlMs = options.storedMessageTtlMs ?? STORED_MESSAGE_TTL_MS;
    this.#logger = options.logger;
    this.#maxPending = options.maxPendingNotifications ?? MAX_PENDING_NOTIFICATIONS;
    this.#fanOut = new FanOut(options.maxBytes, async () => {
      const subscription = await this.#channel.subscribe(this.#heard, () => this.#lost("resubscribed"));
      return () => subscription.unsubscribe();
    });
  }

  /** Subscribers in this process, per topic. */
  count(topic: string): number {
    return this.#fanOut.count(topic);
  }

  /** Whether this process listens on the channel now: only while someone here subscribes. */
  get listening(): boolean {
    return this.#fanOut.hearing;
  }

  async publish(topic: string, message: object): Promise<void> {
    const text = JSON.stringify(message);
    const inline = `{"t":${JSON.stringify(topic)},"m":${text}}`;
    if (utf8Length(inline) <= MAX_PAYLOAD_BYTES) return this.#channel.publish(inline);
    const bytes = utf8Length(text);
    if (bytes > this.#maxBytes) {
      const shown = JSON.stringify(topic.length > SHOWN_TOPIC_CHARS ? `${topic.slice(0, SHOWN_TOPIC_CHARS)}…` : topic);
      throw new RangeError(`A change on ${shown} is ${bytes} bytes, more than the ${this.#maxBytes} a listener may hold unread (MAX_QUEUE_BYTES): publish a smaller message`);
    }
    await this.#sql.begin(async (tx) => {
      await tx`DELETE FROM mcp_change_messages WHERE published_at < now() - make_interval(secs => ${this.#ttlMs / 1_000})`;
      const [row] = await tx<{ id: string }[]>`INSERT INTO mcp_change_messages (publisher, topic, message) VALUES (${this.#publisher}, ${topic}, ${text}) RETURNING id::text`;
      const withTopic = JSON.stringify({ r: row!.id, t: topic } satisfies Payload);
      await this.#channel.publish(utf8Length(withTopic) <= MAX_PAYLOAD_BYTES ? withTopic : JSON.stringify({ r: row!.id } satisfies Payload), tx);
    });
    this.#lastStoredAt = Date.now();
    this.#armSweep();
  }

  subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.#fanOut.subscribe(topic, signal);
  }

  /** Ends every subscriber here, stops listening, and removes the rows this process stored (waiting up to CLOSE_GRACE_MS for the newest to be read). Does not end `sql`: its owner does. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#sweeper);
    await this.#fanOut.close();
    const grace = this.#lastStoredAt + CLOSE_GRACE_MS - Date.now();
    if (grace > 0) await new Promise((resolve) => setTimeout(resolve, grace));
    await this.#sql`DELETE FROM mcp_change_messages WHERE publisher = ${this.#publisher} OR published_at < now() - make_interval(secs => ${this.#ttlMs / 1_000})`;
  }

  /** The channel's listener: it must not throw (`PgChannel`). */
  readonly #heard = (payload: string): void => {
    if (this.#pending.length >= this.#maxPending) {
      this.#pending.length = 0;
      this.#lost("behind");
      return;
    }
    this.#pending.push(payload);
    if (!this.#draining) void this.#drain();
  };

  /** Delivers what was heard, in order: a stored message holds up the ones after it until it is read. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let payload = this.#pending.shift(); payload !== undefined; payload = this.#pending.shift()) await this.#deliver(payload);
    } finally {
      this.#draining = false;
    }
  }

  async #deliver(text: string): Promise<void> {
    const payload = parsePayload(text);
    if (!payload) return this.#logger?.warn("watch.unreadable", { channel: this.#channel.name, payload: text });
    if ("m" in payload) return this.#fanOut.deliver(payload.t, payload.m);
    if (payload.t !== undefined && !this.#fanOut.wants(payload.t)) return;
    try {
      const [row] = await this.#sql<{ topic: string; message: string }[]>`SELECT topic, message FROM mcp_change_messages WHERE id = ${payload.r}::bigint`;
      if (!row) return this.#lost("gone", payload.t);
      if (this.#fanOut.wants(row.topic)) this.#fanOut.deliver(row.topic, JSON.parse(row.message) as object);
    } catch (error) {
      this.#lost(String(error), payload.t);
    }
  }

  /** Some changes (of `topic`, else of any) did not arrive: the listeners are told to read again. */
  #lost(reason: string, topic?: string): void {
    this.#logger?.warn("watch.missed", { reason, ...(topic === undefined ? {} : { topic }) });
    this.#fanOut.missed(topic);
  }

  #armSweep(): void {
    if (this.#sweeper !== undefined || this.#closed) return;
    this.#sweeper = setTimeout(() => {
      this.#sweeper = undefined;
      void this.#sweep();
    }, this.#ttlMs);
    // Not a reason for the process to stay up: a closing process removes its rows itself.
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  /** Removes the stored messages past their time, and comes back while some of this process's remain. */
  async #sweep(): Promise<void> {
    try {
      await this.#sql`DELETE FROM mcp_change_messages WHERE published_at < now() - make_interval(secs => ${this.#ttlMs / 1_000})`;
      const [own] = await this.#sql`SELECT 1 FROM mcp_change_messages WHERE publisher = ${this.#publisher} LIMIT 1`;
      if (own) this.#armSweep();
    } catch (error) {
      this.#logger?.warn("watch.sweep-failed", { message: String(error) });
      this.#armSweep();
    }
  }
}

function parsePayload(text: string): Payload | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.t === "string" && typeof value.m === "object" && value.m !== null) return value as Payload;
    if (typeof value.r === "string" && /^\d+$/.test(value.r) && (value.t === undefined || typeof value.t === "string")) return value as Payload;
  } catch {
    // not ours: reported by the caller
  }
  return undefined;
}
