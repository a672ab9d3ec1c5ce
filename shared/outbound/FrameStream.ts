/**
 * The readable side of one client connection, fed from an `OutboundQueue`: an HTTP response body
 * (SSE bytes) or a stream of JSON texts for a message transport.
 *
 * The stream has a high-water mark of zero: it holds nothing itself and pulls one frame from the
 * queue each time the runtime reads, which happens only as fast as the client's socket drains.
 * So the queue is the single place frames wait, and the queue is bounded.
 *
 * Every end — the client cancels (disconnect), the server closes, an error — runs the same
 * `dispose()` once: the keepalive timer is cleared, a pending pull is released, and `onClose`
 * hears the reason. With a keepalive, its frame goes out every interval in which nothing is
 * waiting to be sent (an SSE comment; message streams have none).
 */
import type { Frame, OutboundQueue } from "./OutboundQueue.ts";

export type CloseReason = "client-disconnected" | "server-closed" | "stream-error";

export interface FrameStreamOptions<T extends Frame> {
  /** A frame sent when idle this often; absent for none. */
  keepalive?: { intervalMs: number; frame: T };
  /**
   * Sent before anything queued, the moment the stream opens (e.g. the legacy `endpoint` event);
   * or, as a promise, once it settles — a resumption's replay, read after the stream was attached,
   * so that nothing sent meanwhile is missed. Nothing queued is read before it.
   */
  first?: T | Promise<T | undefined>;
  onClose(reason: CloseReason): void;
}

export class FrameStream<T extends Frame = Uint8Array> {
  readonly body: ReadableStream<T>;
  #controller!: ReadableStreamDefaultController<T>;
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #draining = false;
  /** A `first` promise not settled yet: nothing is read, and the stream does not end, before it is sent. */
  #firstSent: Promise<void> | undefined;
  #releasePull: (() => void) | undefined;

  constructor(
    private readonly queue: OutboundQueue<T>,
    private readonly options: FrameStreamOptions<T>,
  ) {
    this.body = new ReadableStream<T>(
      {
        start: (controller) => {
          this.#controller = controller;
          const keepalive = options.keepalive;
          if (keepalive) this.#timer = setInterval(() => this.#tick(keepalive.frame), keepalive.intervalMs);
          const first = options.first;
          if (!(first instanceof Promise)) {
            if (first !== undefined) controller.enqueue(first);
            return;
          }
          // Nothing queued is read before the replay: `#pull` waits for this (workerd may call
          // `pull` before a promise returned by `start` settles, so that promise is not enough).
          this.#firstSent = first.then(
            (frame) => {
              this.#firstSent = undefined;
              if (this.#closed) return;
              if (frame !== undefined) controller.enqueue(frame);
              if (this.#draining && this.queue.empty) this.close();
            },
            (error: unknown) => {
              this.#firstSent = undefined;
              this.#dispose("stream-error");
              controller.error(error);
            },
          );
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
    if (this.queue.empty && !this.#firstSent) this.close();
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

  async #pull(controller: ReadableStreamDefaultController<T>): Promise<void> {
    if (this.#firstSent) {
      await this.#firstSent;
      if (this.#closed) return;
    }
    let frame = this.queue.shift();
    while (frame === undefined && !this.#closed && !this.#draining) {
      await Promise.race([this.queue.whenData(), new Promise<void>((r) => (this.#releasePull = r))]);
      this.#releasePull = undefined;
      if (!this.#closed) frame = this.queue.shift();
    }
    if (frame === undefined) {
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

  #tick(frame: T): void {
    // Every tick with nothing waiting gets one, so no gap on the wire exceeds one interval
    // (skipping ticks after recent writes would allow gaps of almost two). With frames waiting,
    // either they are flowing, or the client is not reading and a keepalive could not reach it.
    if (!this.#draining && this.queue.empty) this.queue.push(frame);
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
