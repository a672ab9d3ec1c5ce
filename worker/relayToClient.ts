/**
 * The Worker's end of a relayed stream (`durable/relayProtocol.ts`): the client's SSE response
 * body, fed by what the session object sends over the WebSocket, so that the object holds no
 * stream and may hibernate while its client idles.
 *
 * - Frames arrive as binary messages and wait in a small list until the client reads: the
 *   object never has more than one window (`RELAY_WINDOW_BYTES`) unacknowledged, so the list is
 *   bounded by that, plus one frame.
 * - The body has a high-water mark of zero: a frame is handed over only when the runtime reads,
 *   as fast as the client's socket drains. Every `RELAY_ACK_BYTES` read is acknowledged.
 * - Keepalives are the Worker's: a `: keepalive` comment in every interval in which nothing
 *   waits to be read. A Worker's timer costs nothing while idle (Workers bill CPU time); its
 *   write is what notices a vanished client (through `nativeBody`, which cancels this body).
 * - One teardown: the client left (the body is cancelled: the socket is closed with
 *   `CLIENT_LEFT`, which the object hears as its client leaving), or the object closed the
 *   socket (the body ends once what arrived is read), or the socket failed (the body errors).
 */
import { SSE_KEEPALIVE } from "../shared/outbound/encodeSse.ts";
import { ackMessage, CLIENT_LEFT, RELAY_ACK_BYTES } from "../durable/relayProtocol.ts";

/** The client's response body for a relay socket the object accepted; `keepaliveMs` from KEEPALIVE_INTERVAL_MS. */
export function relayToClient(socket: WebSocket, keepaliveMs: number): ReadableStream<Uint8Array> {
  const frames: Uint8Array[] = [];
  let read = 0;
  let acked = 0;
  let closed = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const signal = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };

  // Binary messages as ArrayBuffers, not Blobs (the WebSocket default), which would need an await each.
  (socket as { binaryType?: string }).binaryType = "arraybuffer";
  socket.accept();
  socket.addEventListener("message", (event) => {
    const data = event.data;
    frames.push(typeof data === "string" ? encoder.encode(data) : new Uint8Array(data as ArrayBuffer));
    signal();
  });
  socket.addEventListener("close", () => {
    closed = true;
    signal();
  });
  socket.addEventListener("error", (event) => {
    closed = true;
    failure = (event as ErrorEvent).error ?? new Error("the session's relay socket failed");
    signal();
  });

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        timer = setInterval(() => {
          // Only when nothing waits: a client that is not reading would not receive it anyway.
          if (frames.length === 0 && (controller.desiredSize ?? 0) >= 0) controller.enqueue(SSE_KEEPALIVE);
        }, keepaliveMs);
      },
      async pull(controller) {
        while (frames.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve));
        const frame = frames.shift();
        if (frame === undefined) {
          clearInterval(timer);
          if (failure !== undefined) controller.error(failure);
          else controller.close();
          return;
        }
        controller.enqueue(frame);
        read += frame.byteLength;
        if (read - acked >= RELAY_ACK_BYTES && !closed) {
          acked = read;
          try {
            socket.send(ackMessage(read));
          } catch {
            // the object closed the socket and its close event is still on its way: no credit needed
          }
        }
      },
      cancel() {
        clearInterval(timer);
        closed = true;
        signal();
        try {
          socket.close(1000, CLIENT_LEFT);
        } catch {
          // the object closed it first
        }
      },
    },
    { highWaterMark: 0 },
  );
}

const encoder = new TextEncoder();
