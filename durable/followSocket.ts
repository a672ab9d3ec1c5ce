/**
 * A listener's side of a Durable Object's socket (the watch objects' topics, a task's changes):
 * what the object sends, read into a bounded `Subscriber`; ending either ends the other.
 */
import { Subscriber } from "../shared/broadcast/Subscriber.ts";

const LISTENER_LEFT = "listener-left";
const encoder = new TextEncoder();

/**
 * A listener's side of an object's socket: what the object sends, as a byte stream of at most
 * `maxBytes` unread (a `Subscriber`); ending either ends the other.
 */
export function followSocket(socket: WebSocket, maxBytes: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  const subscriber = new Subscriber(maxBytes, () => {
    try {
      socket.close(1000, LISTENER_LEFT);
    } catch {
      // the object closed it first
    }
  });
  socket.accept();
  socket.addEventListener("message", (event) => {
    subscriber.push(typeof event.data === "string" ? encoder.encode(event.data) : new Uint8Array(event.data as ArrayBuffer));
  });
  socket.addEventListener("close", () => subscriber.end());
  socket.addEventListener("error", () => subscriber.end());
  return subscriber.follow(signal).stream;
}
