/**
 * The response body of an open SSE stream, fed from an `OutboundQueue`.
 *
 * The stream has a high-water mark of zero: it holds nothing itself and pulls one frame from the
 * queue each time the runtime reads, which happens only as fast as the client's socket drains.
 * So the queue is the single place bytes wait, and the queue is bounded.
 *
 * Every end — the client cancels (disconnect), the server closes, an error — runs the same
 * `dispose()` once: the keepalive timer is cleared, a pending pull is released, and `onClose`
 * hears the reason. A keepalive comment goes out every interval in which nothing is waiting to be sent.
 *
 * The frames are opaque bytes, so the same stream carries newline-delimited JSON for stdio; there
 * it is built without `keepaliveIntervalMs`, since an SSE comment would be garbage on that wire.
 */
import { encodeSseComment } from "../sse/encodeSse.ts";
import type { OutboundQueue } from "../session/OutboundQueue.ts";

export type CloseReason = "client-disconnected" | "server-closed" | "stream-error";

export interface SseStreamOptions {
  /** A keepalive comment when idle this often; absent for none (a stdio stream). */
  keepaliveIntervalMs?: number;
  /** Sent before anything queued, the moment the stream opens (e.g. the legacy `endpoint` event). */
  first?: Uint8Array;
  onClose(reason: CloseReason): void;
}

const KEEPALIVE = new TextEncoder().encode(encodeSseComment("keepalive"));

export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #draining = false;
  #releasePull: (() => void) | undefined;

  constructor(
    private readonly queue: OutboundQueue,
    private readonly options: SseStreamOptions,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
          if (options.first) controller.enqueue(options.first);
          if (options.keepaliveIntervalMs !== undefined) this.#timer = setInterval(() => this.#tick(), options.keepaliveIntervalMs);
        },
        pull: (controller) => this.#pull(controller),
        cancel: () => this.#dispose("client-disconnected"),
      },
      { highWaterMark: 0 },
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Ends the stream once everything queued has been read (a POST stream after its last reply). */
  closeWhenDrained(): void {
    this.#draining = true;
    if (this.queue.stats.messages === 0) this.close();
    else this.#releasePull?.();
  }

  /** Ends the stream from the server side. */
  close(): void {
    if (this.#closed) return;
    this.#dispose("server-closed");
    try {
      this.#controller.close();
    } catch {
      // already errored or closed by the runtime: nothing left to end
    }
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    let frame = this.queue.shift();
    while (!frame && !this.#closed && !this.#draining) {
      await Promise.race([this.queue.whenData(), new Promise<void>((r) => (this.#releasePull = r))]);
      this.#releasePull = undefined;
      if (!this.#closed) frame = this.queue.shift();
    }
    if (!frame) {
      if (this.#draining) this.close();
      return;
    }
    if (this.#closed) return;
    try {
      controller.enqueue(frame);
    } catch {
      this.#dispose("stream-error");
    }
  }

  #tick(): void {
    // Every tick with nothing waiting gets a comment, so no gap on the wire exceeds one interval
    // (skipping ticks after recent writes would allow gaps of almost two). With frames waiting,
    // either they are flowing, or the client is not reading and a comment could not reach it.
    if (!this.#draining && this.queue.stats.messages === 0) this.queue.push(KEEPALIVE);
  }

  #dispose(reason: CloseReason): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#releasePull?.();
    this.options.onClose(reason);
  }
}
