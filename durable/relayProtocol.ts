/**
 * The link between a session's Durable Object and the Worker that holds its client's stream, so
 * that the object can hibernate while its client waits. A long-lived client stream — the
 * legacy `GET /sse`, a Streamable HTTP `GET /mcp` — is not returned by the object: the Worker
 * opens a WebSocket to it (`fetch` with `Upgrade: websocket` and the operation in
 * `OPERATION_HEADER`), the object accepts it with `ctx.acceptWebSocket` (so the runtime, not the
 * object, holds it), and the Worker writes what arrives on it to the client's SSE response, with
 * its own keepalives. The object then has no request and no timer pending while its client
 * idles, so it hibernates; a message it must send wakes it (a request, an alarm), and it finds
 * the socket again (`ctx.getWebSockets()`).
 *
 * Wire: object → Worker, binary messages, each one or more whole SSE events; Worker → object,
 * text `{"ack":<n>}`, the total bytes its client has read so far. Flow control is by credit: the
 * object sends while less than `RELAY_WINDOW_BYTES` it sent is unacknowledged, and the Worker
 * acknowledges every `RELAY_ACK_BYTES` read. So the Worker holds at most one window per stream,
 * the object's bounded queue stays the only place bytes wait, and a client that stops reading
 * still ends in 429s with nothing lost. Close codes: 1000 with a reason either way.
 */

/** Bytes the object may have sent and not had acknowledged, per stream (one frame may exceed it). */
export const RELAY_WINDOW_BYTES = 256 * 1024;
/** The Worker acknowledges each time its client has read this much more. A quarter window keeps the object sending. */
export const RELAY_ACK_BYTES = 64 * 1024;
/** The request header carrying the `SessionOperation` (JSON) of a relayed stream. */
export const OPERATION_HEADER = "x-mcp-operation";
/** The URL the Worker fetches on the object; only the method, headers and upgrade matter. */
export const RELAY_URL = "https://session.internal/relay";

/** Close reasons, for logs on both ends. */
export const CLIENT_LEFT = "client-disconnected";
export const STREAM_ENDED = "stream-ended";

/** An acknowledgement as the Worker sends it. */
export function ackMessage(totalBytes: number): string {
  return `{"ack":${totalBytes}}`;
}

/** The total an acknowledgement carries, or undefined for anything else. */
export function readAck(message: string | ArrayBuffer): number | undefined {
  if (typeof message !== "string") return undefined;
  const match = /^\{"ack":(\d{1,15})\}$/.exec(message);
  return match ? Number(match[1]) : undefined;
}
