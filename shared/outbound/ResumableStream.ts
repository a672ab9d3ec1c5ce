/**
 * One Streamable HTTP stream (transports spec, "Resumability and Redelivery"): a POST's response
 * stream or the standalone GET stream. Every event gets the id `<streamId>.<seq>` and is stored
 * in the `EventStore` before it is queued, so a client that lost its connection resumes with
 * `Last-Event-ID` and loses nothing. While no connection is open, events are only stored.
 *
 * A new connection is primed (SEP-1699, 2025-11-25 clients): its first event carries an id, no
 * data and the `retry` hint, so the client can resume even before the first message.
 *
 * A resumption attaches its connection first and notes the last sequence number given out; it
 * then replays the stored events up to that number (once every event numbered so far is
 * stored), and anything numbered later goes to it live. So a message sent while the replay is
 * read arrives exactly once. After a reload the numbering continues from
 * the last stored event (`lastSeq`), so event ids never repeat.
 *
 * Not here: which stream a message belongs to, JSON-instead-of-SSE answers (`PostAnswer`).
 */
import type { Logger } from "../log/Logger.ts";
import { concatBytes } from "../bytes/concatBytes.ts";
import { encodeSse, SSE_HEADERS, SSE_KEEPALIVE, sseMessage } from "./encodeSse.ts";
import type { EventStore } from "./EventStore.ts";
import { type CloseReason, FrameStream } from "./FrameStream.ts";
import { OutboundQueue } from "./OutboundQueue.ts";
import type { QueueBudget, Reservation } from "./QueueBudget.ts";

export interface ResumableStreamOptions {
  id: string;
  budget: QueueBudget;
  events: EventStore;
  keepaliveIntervalMs: number;
  /** The SEP-1699 `retry` hint; absent for clients older than 2025-11-25, which get no priming event. */
  primingRetryMs?: number;
  /** The last sequence number this stream used before a reload; 0 for a new stream. */
  lastSeq?: number;
  log: Logger;
  /** A connection of this stream closed, with the reason. */
  onDisconnect?(reason: CloseReason): void;
}

const encoder = new TextEncoder();

export class ResumableStream {
  readonly id: string;
  readonly #options: ResumableStreamOptions;
  readonly #queue: OutboundQueue<Uint8Array>;
  #connection: FrameStream<Uint8Array> | undefined;
  /** Events numbered after this go to the connection live; those up to it, by its replay. */
  #liveAfter = 0;
  #seq: number;
  /** Appends under way: a replay waits for them, so it misses none numbered before it. */
  readonly #storing = new Set<Promise<boolean>>();
  #finished = false;

  constructor(options: ResumableStreamOptions) {
    this.id = options.id;
    this.#options = options;
    this.#seq = options.lastSeq ?? 0;
    this.#queue = new OutboundQueue<Uint8Array>(options.budget);
  }

  get connected(): boolean {
    return this.#connection !== undefined;
  }

  /** The last sequence number given out. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * Opens a connection reading this stream live; a stream that sent nothing yet is primed. A
   * `relayed` connection gets no keepalives (its relay sends them).
   */
  connect(relayed = false): Response {
    const retry = this.#options.primingRetryMs;
    return this.#open(retry !== undefined && this.#seq === 0 ? encoder.encode(encodeSse({ id: `${this.id}.0`, retry, data: "" })) : undefined, this.#seq, relayed);
  }

  /** Reconnects after `Last-Event-ID`: replays the stored events after `seq`, then continues live (see the module header). */
  resume(seq: number, relayed = false): Response {
    const upTo = this.#seq;
    return this.#open(this.#replay(seq, upTo), upTo, relayed);
  }

  /** Stores and queues a reply whose room was reserved, committing the reservation once it is queued. */
  async reply(json: string, reservation?: Reservation): Promise<void> {
    try {
      const { seq, frame } = await this.#store(json);
      if (this.#isLive(seq)) this.#queue.push(frame);
    } finally {
      reservation?.commit();
    }
  }

  /** Stores a message, then queues it once the budget has room (if a connection reads it); gives up when `signal` aborts. */
  async notify(json: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const { seq, frame } = await this.#store(json);
    if (!this.#isLive(seq)) return;
    if (signal) await this.#queue.pushWhenRoom(frame, signal);
    else this.#queue.push(frame);
  }

  /** SEP-1699 polling: ends the current connection once it has read what is queued, not the stream. */
  disconnect(): void {
    this.#connection?.closeWhenDrained();
  }

  /** No more messages: the connection ends once its client has read everything. */
  finish(): void {
    this.#finished = true;
    this.#connection?.closeWhenDrained();
  }

  /** Ends the stream at once (the session ends). */
  close(): void {
    this.#finished = true;
    this.#connection?.close();
    this.#queue.clear();
  }

  /** Whether an event numbered `seq` goes to the connection now (rather than by its replay, or not at all). */
  #isLive(seq: number): boolean {
    return this.#connection !== undefined && seq > this.#liveAfter;
  }

  /** Numbers a message and stores it as an event; the frame to queue. */
  async #store(json: string): Promise<{ seq: number; frame: Uint8Array }> {
    const seq = ++this.#seq;
    const frame = sseMessage(json, `${this.id}.${seq}`);
    const appending = this.#options.events.append(this.id, seq, frame);
    this.#storing.add(appending);
    try {
      if (!(await appending)) {
        this.#options.log.warn("event.not-stored", { stream: this.id, seq, bytes: frame.byteLength, reason: "over the stored-event size limit; delivered live only" });
        if (!this.#connection) this.#options.log.error("event.lost", { stream: this.id, seq });
      }
    } finally {
      this.#storing.delete(appending);
    }
    return { seq, frame };
  }

  /** The stored events after `after` and up to `upTo`, once every event numbered so far is stored. */
  async #replay(after: number, upTo: number): Promise<Uint8Array | undefined> {
    await Promise.allSettled([...this.#storing]);
    const frames = await this.#options.events.after(this.id, after, upTo);
    return frames.length > 0 ? concatBytes(frames) : undefined;
  }

  #open(first: Uint8Array | Promise<Uint8Array | undefined> | undefined, liveAfter: number, relayed: boolean): Response {
    this.#connection?.close();
    this.#liveAfter = liveAfter;
    const stream: FrameStream<Uint8Array> = new FrameStream(this.#queue, {
      keepalive: relayed ? undefined : { intervalMs: this.#options.keepaliveIntervalMs, frame: SSE_KEEPALIVE },
      first,
      onClose: (reason) => {
        if (this.#connection !== stream) return;
        this.#connection = undefined;
        // Stored events will be replayed on resumption; the live copies have no reader any more.
        this.#queue.clear();
        this.#options.onDisconnect?.(reason);
      },
    });
    this.#connection = stream;
    if (this.#finished) stream.closeWhenDrained();
    return new Response(stream.body, { headers: SSE_HEADERS });
  }
}
