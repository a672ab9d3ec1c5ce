/**
 * One logical SSE stream of a session, and the connection (if any) currently reading it:
 * - the legacy HTTP+SSE stream (`resumable: false`): no event ids; while no connection is open,
 *   frames wait in the bounded queue for `GET /sse?sessionId=` to reopen it;
 * - a Streamable HTTP stream — a POST's response stream or the standalone GET stream
 *   (`resumable: true`): every event gets the id `<streamId>.<seq>` and is stored in the
 *   `EventStore` before it is queued, so a client that lost its connection resumes with
 *   `Last-Event-ID` and loses nothing. While no connection is open, events are only stored.
 *
 * A POST stream can still become a plain JSON response: while `pendingJson` is set and the
 * first thing sent is the single reply it waits for, that reply is the whole HTTP response
 * (transports spec: a server answers a request with `application/json` or an SSE stream).
 *
 * A message transport (stdio, a WebSocket) uses a channel like the legacy one with
 * `framing: "message"`: each chunk of the body is one JSON text, with no event fields, no
 * keepalives and no priming; the transport frames it for its wire (stdio adds the newline).
 *
 * Not here: what a message means, which channel it belongs to, admission.
 */
import type { Logger } from "../log/Logger.ts";
import { OutboundQueue } from "../session/OutboundQueue.ts";
import type { QueueBudget } from "../session/QueueBudget.ts";
import { encodeSse } from "../sse/encodeSse.ts";
import type { EventStore } from "./EventStore.ts";
import { type CloseReason, SseStream } from "./SseStream.ts";
import type { Outlet, SendKind } from "./Transport.ts";

export interface ChannelOptions {
  id: string;
  budget: QueueBudget;
  /** A `:` comment on an idle connection this often; absent for none (whole messages have no comments). */
  keepaliveIntervalMs?: number;
  /** How each message is written: an SSE `message` event (default), or the bare JSON text, one chunk per message. */
  framing?: Framing;
  /** A POST's stream: it finishes once this many requests answered on it have settled. */
  replies?: number;
  /** Called when the channel finished because its last owed request settled. */
  onAnswered?(): void;
  log: Logger;
  /** Present for Streamable HTTP streams: events get ids and are stored before they are written. */
  events?: EventStore;
  /** SEP-1699 (2025-11-25): open with an event carrying an id, empty data and this `retry` hint. */
  primingRetryMs?: number;
  /** Called when a connection of this channel closes, with the reason. */
  onDisconnect?(reason: CloseReason): void;
}

export type Framing = "sse" | "message";

const encoder = new TextEncoder();

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // Tells buffering reverse proxies (nginx and kin) to pass events through at once.
  "x-accel-buffering": "no",
} as const;

export class Channel implements Outlet {
  readonly id: string;
  readonly #options: ChannelOptions;
  readonly #queue: OutboundQueue;
  #connection: SseStream | undefined;
  #seq = 0;
  #finished = false;
  #owed: number | undefined;
  /** For a POST stream that may still answer with plain JSON. */
  #pendingJson: ((response: Response) => void) | undefined;

  constructor(options: ChannelOptions) {
    if (options.framing === "message" && (options.events || options.primingRetryMs !== undefined)) {
      throw new Error(`Channel ${options.id}: message framing has no event ids, so it cannot be resumable or primed`);
    }
    this.id = options.id;
    this.#options = options;
    this.#owed = options.replies;
    this.#queue = new OutboundQueue(options.budget);
  }

  get connected(): boolean {
    return this.#connection !== undefined;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /**
   * A POST's response: JSON if the first thing sent is the one reply (`expectJson`), otherwise
   * an SSE stream opened at the first send.
   */
  respond(expectJson: boolean, headers: Record<string, string> = {}): Promise<Response> {
    return new Promise((resolve) => {
      this.#pendingJson = (response) => {
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        resolve(response);
      };
      if (!expectJson) this.#resolveAsSse();
    });
  }

  /**
   * Opens a connection reading this channel; `first` is sent before anything queued. A new
   * stream is primed (SEP-1699) unless `prime` is false, as for a resumed one.
   */
  connect(first?: string, headers: Record<string, string> = {}, prime = true): Response {
    this.#connection?.close();
    const primed = (prime ? this.#priming() : "") + (first ?? "");
    const stream = new SseStream(this.#queue, {
      keepaliveIntervalMs: this.#options.keepaliveIntervalMs,
      first: primed ? encoder.encode(primed) : undefined,
      onClose: (reason) => this.#onClose(stream, reason),
    });
    this.#connection = stream;
    if (this.#finished) stream.closeWhenDrained();
    const base = this.#options.framing === "message" ? {} : SSE_HEADERS;
    return new Response(stream.body, { headers: { ...base, ...headers } });
  }

  /** Reconnects after `Last-Event-ID`: replays stored events after `seq`, then continues live. */
  async resume(seq: number): Promise<Response> {
    const events = this.#options.events;
    if (!events) throw new Error(`Channel ${this.id} is not resumable`);
    const frames = await events.after(this.id, seq);
    return this.connect(frames.join(""), {}, false);
  }

  /**
   * Sends one JSON-RPC message. Replies are pushed (their room was reserved); notifications and
   * server requests wait for room in the session's budget, aborting with `signal`. `onQueued`
   * runs in the same synchronous step that queues the reply (or decides it needs no queueing), so
   * the caller can turn its reservation into the queued frame with no moment counted twice.
   * `status` is the HTTP status of a reply that becomes the whole JSON response (a 2026-07-28
   * error is 400 or 404, not 200); on a stream it has no meaning.
   */
  async send(message: object, kind: SendKind, signal?: AbortSignal, onQueued?: () => void, status = 200): Promise<void> {
    let queued = false;
    const done = () => {
      if (!queued) onQueued?.();
      queued = true;
    };
    try {
      const data = JSON.stringify(message);
      if (this.#pendingJson && kind === "reply" && this.#seq === 0) {
        const resolve = this.#pendingJson;
        this.#pendingJson = undefined;
        this.#finished = true;
        done();
        resolve(new Response(data, { status, headers: { "content-type": "application/json" } }));
        return;
      }
      if (this.#pendingJson) this.#resolveAsSse();
      const events = this.#options.events;
      const seq = events ? ++this.#seq : 0;
      const frame =
        this.#options.framing === "message"
          ? data
          : encodeSse(events ? { event: "message", id: `${this.id}.${seq}`, data } : { event: "message", data });
      if (events && !(await events.append(this.id, seq, frame))) {
        this.#options.log.warn("event.not-stored", { stream: this.id, seq, bytes: frame.length, reason: "larger than MAX_STORED_EVENT_BYTES; delivered live only" });
        if (!this.#connection) this.#options.log.error("event.lost", { stream: this.id, seq });
      }
      // A resumable channel with no reader keeps its events in storage only.
      if (events && !this.#connection) return;
      const bytes = encoder.encode(frame);
      if (kind === "reply" || !signal) {
        this.#queue.push(bytes);
        done();
      } else await this.#queue.pushWhenRoom(bytes, signal);
    } finally {
      done();
    }
  }

  settled(): void {
    if (this.#owed === undefined || --this.#owed > 0) return;
    this.#owed = undefined;
    this.finish();
    this.#options.onAnswered?.();
  }

  /** No more messages: the connection ends once its client has read everything. */
  finish(): void {
    this.#finished = true;
    this.#connection?.closeWhenDrained();
  }

  /**
   * SEP-1699 polling: ends the current connection without ending the stream. The client
   * reconnects after the `retry` hint it was primed with and resumes with `Last-Event-ID`.
   */
  disconnect(): void {
    if (this.#pendingJson) this.#resolveAsSse();
    this.#connection?.closeWhenDrained();
  }

  /** Drops whatever waits in the queue: its reader is gone for good (a legacy client left). */
  discard(): void {
    this.#queue.clear();
  }

  /** Ends the channel at once (the session ends). */
  close(): void {
    this.#finished = true;
    this.#connection?.close();
  }

  #resolveAsSse(): void {
    const resolve = this.#pendingJson!;
    this.#pendingJson = undefined;
    resolve(this.connect());
  }

  #priming(): string {
    const retry = this.#options.primingRetryMs;
    if (retry === undefined || !this.#options.events || this.#seq > 0) return "";
    return encodeSse({ id: `${this.id}.0`, retry, data: "" });
  }

  #onClose(stream: SseStream, reason: CloseReason): void {
    if (this.#connection !== stream) return;
    this.#connection = undefined;
    // Stored events will be replayed on resumption; the live copies have no reader any more.
    if (this.#options.events) this.#queue.clear();
    this.#options.onDisconnect?.(reason);
  }
}
