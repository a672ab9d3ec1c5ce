/**
 * The `Broadcaster` of Deno processes on one KV database (Deno Deploy's instances, or processes
 * sharing a KV file): a change published by any of them reaches the subscribers of every one.
 * Deno Deploy has no KV queues, so changes go through a log in KV that every listening process
 * reads, handing what it reads to its own subscribers (`FanOut`, bounded per subscriber as in
 * memory), its own changes included, so every process sees the changes in one order.
 *
 * Keys: `["watch", "head"]` → `{ epoch, seq }`, the last change's place; `["watch", "log", epoch,
 * seq]` → `{ topic, message }`, one per change. A publish is one atomic commit checked against the
 * head (written again after a conflict with another publisher), which also deletes the entry
 * MAX_LOG_ENTRIES back: the log never holds more. Every key expires LOG_TTL_MS after it is written,
 * so a server that stops publishing leaves no key behind; a head that has lapsed starts a new
 * epoch, whose entries do not mix with the old one's.
 *
 * A listening process reads the entries after its place whenever the head changes: at once when
 * `kv.watch` tells it (on Deno Deploy, and in the publishing process), and every `pollMs` (a
 * local KV file's watch does not hear other processes' writes). Only while someone here
 * subscribes: the watch and the timer are the subscribers', and go with the last of them.
 *
 * Bounded: a message (with its topic) of at most MAX_MESSAGE_BYTES, under Deno KV's value limit,
 * else refused with a sentence. Lost changes are said, not hidden: a process more than
 * MAX_LOG_ENTRIES behind, or finding entries gone, tells every topic's listeners to read again
 * (`FanOut.missed`).
 */
import type { Broadcaster } from "../../../shared/broadcast/Broadcaster.ts";
import { utf8Length } from "../../../shared/bytes/utf8Length.ts";
import type { Logger } from "../../../shared/log/Logger.ts";
import { pauseAfterConflict } from "../../../deno/kv/pauseAfterConflict.ts";
import { FanOut } from "../FanOut.ts";

const WATCH = "watch";
const HEAD: Deno.KvKey = [WATCH, "head"];
const LOG = "log";
/** Entries the log keeps: a process further behind has lost some. */
export const MAX_LOG_ENTRIES = 256;
/** How long each key of the log lives after it is written, in milliseconds. */
export const LOG_TTL_MS = 60_000;
/** How often a listening process reads the head, in milliseconds, besides what `kv.watch` tells it. */
export const POLL_MS = 250;
/** The largest message with its topic, in UTF-8 bytes: under Deno KV's 65,536-byte value limit. */
export const MAX_MESSAGE_BYTES = 60_000;
/** Attempts of one publish: each failed one means another process published meanwhile. */
const MAX_ATTEMPTS = 32;
/** Characters of a topic shown in a refusal. */
const SHOWN_TOPIC_CHARS = 200;

interface Head {
  epoch: string;
  seq: number;
}
/**
 * One change as stored: its topic and message as UTF-8 bytes of JSON, since Deno KV stores a
 * string with any character past U+00FF at two bytes a character, which would put a message
 * within MAX_MESSAGE_BYTES of UTF-8 past KV's value limit.
 */
type Entry = Uint8Array;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface KvBroadcasterOptions {
  /** Unread bytes each subscriber may hold (`MAX_QUEUE_BYTES`). */
  maxBytes: number;
  logger?: Logger;
  /** Default POLL_MS. */
  pollMs?: number;
  /** Default LOG_TTL_MS. */
  ttlMs?: number;
}

/**
 * @example
 * const broadcast = new KvBroadcaster(kv, { maxBytes: config.maxQueueBytes, logger });
 * // … a runtime built with it; at shutdown, before kv.close():
 * await broadcast.close();
 */
export class KvBroadcaster implements Broadcaster {
  readonly #kv: Deno.Kv;
  readonly #fanOut: FanOut;
  readonly #maxMessageBytes: number;
  readonly #pollMs: number;
  readonly #ttlMs: number;
  readonly #logger: Logger | undefined;
  /** Where this process has read to. */
  #cursor: Head = { epoch: "", seq: 0 };
  /** Counts each start: a read begun before the last start or stop delivers nothing. */
  #generation = 0;
  #listening = false;
  #reading: Promise<void> | undefined;
  #again = false;

  constructor(kv: Deno.Kv, options: KvBroadcasterOptions) {
    this.#kv = kv;
    this.#maxMessageBytes = Math.min(options.maxBytes, MAX_MESSAGE_BYTES);
    this.#pollMs = options.pollMs ?? POLL_MS;
    this.#ttlMs = options.ttlMs ?? LOG_TTL_MS;
    this.#logger = options.logger;
    this.#fanOut = new FanOut(options.maxBytes, () => this.#start());
  }

  /** Subscribers in this process, per topic. */
  count(topic: string): number {
    return this.#fanOut.count(topic);
  }

  /** Whether this process reads the log now: only while someone here subscribes. */
  get listening(): boolean {
    return this.#listening;
  }

  async publish(topic: string, message: object): Promise<void> {
    const text = JSON.stringify(message);
    const bytes = utf8Length(topic) + utf8Length(text);
    if (bytes > this.#maxMessageBytes) {
      const shown = JSON.stringify(topic.length > SHOWN_TOPIC_CHARS ? `${topic.slice(0, SHOWN_TOPIC_CHARS)}…` : topic);
      throw new RangeError(`A change on ${shown} is ${bytes} bytes with its topic, more than the ${this.#maxMessageBytes} Deno KV carries between processes: publish a smaller message`);
    }
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await pauseAfterConflict(attempt);
      const head = await this.#kv.get<Head>(HEAD);
      const epoch = head.value?.epoch ?? crypto.randomUUID();
      const seq = (head.value?.seq ?? 0) + 1;
      const commit = this.#kv
        .atomic()
        .check(head)
        .set(HEAD, { epoch, seq } satisfies Head, { expireIn: this.#ttlMs })
        .set([WATCH, LOG, epoch, seq], encoder.encode(JSON.stringify([topic, text])) satisfies Entry, { expireIn: this.#ttlMs });
      if (seq > MAX_LOG_ENTRIES) commit.delete([WATCH, LOG, epoch, seq - MAX_LOG_ENTRIES]);
      if ((await commit.commit()).ok) {
        if (this.#listening) this.#read();
        return;
      }
    }
    throw new Error(`A change on ${JSON.stringify(topic.slice(0, SHOWN_TOPIC_CHARS))} was not published: ${MAX_ATTEMPTS} attempts each found another process publishing`);
  }

  subscribe(topic: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    return this.#fanOut.subscribe(topic, signal);
  }

  /** Ends every subscriber here and stops reading the log. Does not close `kv`: its owner does. */
  async close(): Promise<void> {
    await this.#fanOut.close();
  }

  /** Starts reading from the head as it is now; the returned function stops. */
  async #start(): Promise<() => Promise<void>> {
    const generation = ++this.#generation;
    this.#cursor = (await this.#kv.get<Head>(HEAD)).value ?? { epoch: "", seq: 0 };
    this.#listening = true;
    const changes = this.#kv.watch([HEAD]).getReader();
    const watching = (async () => {
      for (;;) {
        const next = await changes.read();
        if (next.done || generation !== this.#generation) return;
        this.#read();
      }
    })().catch((error) => generation === this.#generation && this.#logger?.warn("watch.kv-watch-ended", { message: String(error) }));
    const poller = setInterval(() => this.#read(), this.#pollMs);
    return async () => {
      this.#generation++;
      this.#listening = false;
      clearInterval(poller);
      await changes.cancel().catch(() => {});
      await watching;
      await this.#reading;
    };
  }

  /** Reads what was published since the last read, once at a time: a read asked for meanwhile runs after. */
  #read(): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        // Nothing is lost when a read fails: the place is moved on only after a read, and the next poll tries again.
        await this.#readOnce().catch((error) => this.#logger?.warn("watch.read-failed", { message: String(error) }));
      } while (this.#again && this.#listening);
      this.#reading = undefined;
    })();
  }

  async #readOnce(): Promise<void> {
    const generation = this.#generation;
    const head = (await this.#kv.get<Head>(HEAD)).value;
    if (!head || generation !== this.#generation) return;
    // A new epoch began after the last one lapsed unwritten for LOG_TTL_MS: its entries count from 1.
    const after = head.epoch === this.#cursor.epoch ? this.#cursor.seq : 0;
    if (head.seq <= after) return;
    const from = Math.max(after + 1, head.seq - MAX_LOG_ENTRIES + 1);
    const entries: Array<{ seq: number; value: Entry }> = [];
    for await (const entry of this.#kv.list<Entry>({ start: [WATCH, LOG, head.epoch, from], end: [WATCH, LOG, head.epoch, head.seq + 1] })) {
      entries.push({ seq: entry.key[3] as number, value: entry.value });
    }
    if (generation !== this.#generation) return;
    this.#cursor = head;
    if (from > after + 1 || entries.length !== head.seq - from + 1) this.#lost(from > after + 1 ? "behind" : "gone");
    for (const { value } of entries) {
      const [topic, text] = JSON.parse(decoder.decode(value)) as [string, string];
      if (this.#fanOut.wants(topic)) this.#fanOut.deliver(topic, JSON.parse(text) as object);
    }
  }

  /** Some changes did not arrive: every listener here is told to read again. */
  #lost(reason: string): void {
    this.#logger?.warn("watch.missed", { reason });
    this.#fanOut.missed();
  }
}
