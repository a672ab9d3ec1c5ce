/**
 * One logical outgoing stream without event ids, and the connection (if any) reading it now:
 * - the legacy HTTP+SSE stream: while no connection is open, frames wait in the bounded queue
 *   for `GET /sse?sessionId=` to reopen it;
 * - a stream of whole messages (stdio, a WebSocket): JSON texts, no keepalives;
 * - a 2026-07-28 request's or listener's SSE stream, which lives as long as its one connection.
 *
 * `frame` turns a message's JSON text into what the wire carries (an SSE `message` event, or the
 * text itself), once, at the moment it is queued.
 *
 * Not here: event ids and resumption (`ResumableStream`), what a message means, admission.
 */
import type { Logger } from "../log/Logger.ts";
import { type CloseReason, FrameStream } from "./FrameStream.ts";
import { type Frame, OutboundQueue } from "./OutboundQueue.ts";
import type { QueueBudget, Reservation } from "./QueueBudget.ts";

export interface LiveStreamOptions<T extends Frame> {
  budget: QueueBudget;
  frame(json: string): T;
  keepalive?: { intervalMs: number; frame: T };
  /** A connection of this stream closed, with the reason. */
  onDisconnect?(reason: CloseReason): void;
  log?: Logger;
}

export class LiveStream<T extends Frame = Uint8Array> {
  readonly #options: LiveStreamOptions<T>;
  readonly #queue: OutboundQueue<T>;
  #connection: FrameStream<T> | undefined;
  #finished = false;

  constructor(options: LiveStreamOptions<T>) {
    this.#options = options;
    this.#queue = new OutboundQueue<T>(options.budget);
  }

  get connected(): boolean {
    return this.#connection !== undefined;
  }

  /**
   * Opens a connection reading this stream, replacing any other; `first` goes before anything
   * queued. A `relayed` connection gets no keepalives (its relay sends them).
   */
  connect(first?: T, relayed = false): ReadableStream<T> {
    this.#connection?.close();
    const stream: FrameStream<T> = new FrameStream(this.#queue, {
      keepalive: relayed ? undefined : this.#options.keepalive,
      first,
      onClose: (reason) => {
        if (this.#connection !== stream) return;
        this.#connection = undefined;
        this.#options.onDisconnect?.(reason);
      },
    });
    this.#connection = stream;
    if (this.#finished) stream.closeWhenDrained();
    return stream.body;
  }

  /** Queues a reply whose room was reserved, committing the reservation in the same step. */
  reply(json: string, reservation?: Reservation): void {
    this.#queue.push(this.#options.frame(json));
    reservation?.commit();
  }

  /** Queues a message once the budget has room; gives up when `signal` aborts. Without a signal it is queued at once. */
  async notify(json: string, signal?: AbortSignal): Promise<void> {
    const frame = this.#options.frame(json);
    if (signal) await this.#queue.pushWhenRoom(frame, signal);
    else this.#queue.push(frame);
  }

  /** No more messages: the connection ends once its client has read everything. */
  finish(): void {
    this.#finished = true;
    this.#connection?.closeWhenDrained();
  }

  /** Drops whatever waits in the queue: its reader is gone for good. */
  discard(): void {
    this.#queue.clear();
  }

  /** Ends the stream at once and drops what waits. */
  close(): void {
    this.#finished = true;
    this.#connection?.close();
    this.#queue.clear();
  }
}
