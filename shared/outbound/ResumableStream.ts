/**
 * One Streamable HTTP stream (transports spec, "Resumability and Redelivery"): a POST's response
 * stream or the standalone GET stream. Every event gets the id `<streamId>.<seq>` and is stored
 * in the `EventStore` before it is queued, so a client that lost its connection resumes with
 * `Last-Event-ID` and loses nothing. While no connection is open, events are only stored.
 *
 * A new connection is primed (SEP-1699, 2025-11-25 clients): its first event carries an id, no
 * data and the `retry` hint, so the client can resume even before the first message.
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
  #seq = 0;
  #finished = false;

  constructor(options: ResumableStreamOptions) {
    this.id = options.id;
    this.#options = options;
    this.#queue = new OutboundQueue<Uint8Array>(options.budget);
  }

  get connected(): boolean {
    return this.#connection !== undefined;
  }

  /** Opens a connection reading this stream live; a stream that sent nothing yet is primed. */
  connect(): Response {
    const retry = this.#options.primingRetryMs;
    return this.#open(retry !== undefined && this.#seq === 0 ? encoder.encode(encodeSse({ id: `${this.id}.0`, retry, data: "" })) : undefined);
  }

  /** Reconnects after `Last-Event-ID`: replays the stored events after `seq`, then continues live. */
  async resume(seq: number): Promise<Response> {
    const frames = await this.#options.events.after(this.id, seq);
    return this.#open(frames.length > 0 ? concatBytes(frames) : undefined);
  }

  /** Stores and queues a reply whose room was reserved, committing the reservation once it is queued. */
  async reply(json: string, reservation?: Reservation): Promise<void> {
    try {
      const frame = await this.#store(json);
      if (frame && this.#connection) this.#queue.push(frame);
    } finally {
      reservation?.commit();
    }
  }

  /** Stores a message, then queues it once the budget has room (if a connection reads it); gives up when `signal` aborts. */
  async notify(json: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const frame = await this.#store(json);
    if (!frame || !this.#connection) return;
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

  /** The frame to queue, stored first; undefined when the stream has no reader to queue it for. */
  async #store(json: string): Promise<Uint8Array | undefined> {
    const seq = ++this.#seq;
    const frame = sseMessage(json, `${this.id}.${seq}`);
    if (!(await this.#options.events.append(this.id, seq, frame))) {
      this.#options.log.warn("event.not-stored", { stream: this.id, seq, bytes: frame.byteLength, reason: "over the stored-event size limit; delivered live only" });
      if (!this.#connection) this.#options.log.error("event.lost", { stream: this.id, seq });
    }
    return frame;
  }

  #open(first: Uint8Array | undefined): Response {
    this.#connection?.close();
    const stream: FrameStream<Uint8Array> = new FrameStream(this.#queue, {
      keepalive: { intervalMs: this.#options.keepaliveIntervalMs, frame: SSE_KEEPALIVE },
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
