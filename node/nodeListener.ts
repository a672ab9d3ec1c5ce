/**
 * `node:http` ↔ web-standard `Request`/`Response`, so the shared routes serve Node unchanged:
 * the request's headers (every one, repeated ones too), its body as a stream read only when the
 * route reads it, and a signal aborted when the client leaves before its answer is sent; the
 * response's status and headers sent at once (an event stream's first bytes are not held back),
 * its body written with the socket's backpressure, and cancelled when the client leaves, which
 * is how a session learns its stream closed. The URL is the Host header's authority and the
 * target's path (`requestUrl`); a request that has none is refused 400 here, as workerd and Deno
 * refuse a malformed Host before the Worker sees it.
 *
 * A request answered before its body was read (a 413 by its declared length, a body cut off at
 * the limit) is answered once the rest of its body has been read and dropped, so that the
 * connection can carry the next request and a client still sending reads the answer rather than
 * a reset; past BODY_LINGER_MS or BODY_LINGER_BYTES it is answered with `Connection: close`
 * instead. A header block past Node's limit (`refuseClientError`) gets its 431, and the
 * connection is read to its end for the same reason.
 *
 * Written here rather than taken from an adapter package: the ones that fit (`@hono/node-server`)
 * need Hono as a peer and replace the process's global `Request` and `Response` by default; Node
 * 20's own `Request`, `Response` and `Readable.toWeb` leave this file little to do.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { McpError } from "../shared/errors/McpError.ts";
import { requestUrl, type UnaddressedRequest } from "./requestUrl.ts";

/** What the shared router is: a request, its client's address, its answer. */
export type FetchHandler = (request: Request, address: string | undefined) => Promise<Response>;

/** A `node:http` request listener serving `handle`. Never rejects: a failure ends the response. */
export function nodeListener(handle: FetchHandler): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  return (incoming, outgoing) => {
    void serve(handle, incoming, outgoing).catch(() => outgoing.destroy());
  };
}

async function serve(handle: FetchHandler, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const left = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) left.abort(new Error("The client closed the connection"));
  });
  // GET and HEAD carry no body: nothing reads theirs, and Node drops what comes (`_dump`).
  const body = incoming.method === "GET" || incoming.method === "HEAD" ? undefined : bodyOf(incoming);
  const request = toRequest(incoming, body?.stream, left.signal);
  if ("refused" in request) {
    outgoing.shouldKeepAlive = false;
    outgoing.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end(request.refused);
    return;
  }
  const response = await handle(request, incoming.socket.remoteAddress);
  // A body the route left unread, or stopped reading at its limit, is read to its end first.
  if (body && !incoming.readableEnded && !(await body.discard())) outgoing.shouldKeepAlive = false;
  await send(response, outgoing, left.signal);
}

/** The web request for `incoming` with `body` as its body, or why it has no URL (`requestUrl`). */
function toRequest(incoming: IncomingMessage, body: ReadableStream<Uint8Array> | undefined, signal: AbortSignal): Request | UnaddressedRequest {
  const url = requestUrl(incoming.headers.host, incoming.url ?? "/");
  if (!(url instanceof URL)) return url;
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return new Request(url, { method: incoming.method ?? "GET", headers, signal, ...(body ? { body, duplex: "half" } : {}) } as RequestInit);
}

/** Bytes of a request's body held ahead of the route's reads before the socket is paused. */
const BODY_BUFFER_BYTES = 64 * 1024;

/** How long, and how much more, a request's unread body is read and dropped before its answer goes out with `Connection: close` instead. */
const BODY_LINGER_MS = 1_000;
const BODY_LINGER_BYTES = 1024 * 1024;

/**
 * The request's body as a web stream, read as the route reads it (the socket paused while the
 * route is behind); and `discard()`, for a body the route left unread or cancelled: the rest is
 * read and dropped, resolving true once it has all arrived, false past the linger bounds. The
 * socket is never destroyed for it, so the answer still reaches the client.
 */
function bodyOf(incoming: IncomingMessage): { stream: ReadableStream<Uint8Array>; discard(): Promise<boolean> } {
  // Once the route cancels (or the answer is ready), the stream takes nothing more.
  let dropping = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        incoming.on("data", (chunk: Buffer) => {
          if (dropping) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
        });
        incoming.once("end", () => dropping || controller.close());
        // The client left, or was cut off (Node's request timeout), mid-body: the request is
        // refused as such, not an error of the server's to log.
        incoming.once("error", () => dropping || controller.error(cutOff()));
      },
      pull() {
        incoming.resume();
      },
      cancel() {
        dropping = true;
        incoming.resume();
      },
    },
    { highWaterMark: BODY_BUFFER_BYTES, size: (chunk) => chunk.byteLength },
  );
  const discard = () =>
    new Promise<boolean>((resolve) => {
      dropping = true;
      let dropped = 0;
      const settle = (whole: boolean) => {
        clearTimeout(timer);
        incoming.off("data", count).off("end", ended).off("close", gone);
        resolve(whole);
      };
      const count = (chunk: Buffer) => {
        dropped += chunk.byteLength;
        if (dropped > BODY_LINGER_BYTES) settle(false);
      };
      const ended = () => settle(true);
      const gone = () => settle(incoming.complete);
      const timer = setTimeout(() => settle(false), BODY_LINGER_MS);
      incoming.on("data", count).once("end", ended).once("close", gone);
      incoming.resume();
    });
  return { stream, discard };
}

/** Why a body that stopped before its end was not read: the client's connection closed. */
function cutOff(): McpError {
  return new McpError(400, ErrorCode.InvalidRequest, "The request body did not arrive whole: its connection closed first");
}

/**
 * Node's `clientError` (a request its parser refused: a header block past `maxHeaderSize`, bad
 * framing): 431 or 400, `Connection: close`, then the rest of what the client sends is read and
 * dropped until it closes, so it reads the answer instead of a reset. A request that did not
 * arrive whole within Node's request timeout gets 408 and its connection is closed at once: its
 * client is the slow one. Nothing is written into an answer already under way.
 */
export function refuseClientError(error: Error & { code?: string }, socket: Socket): void {
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || answering) return void socket.destroy();
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", () => socket.destroy());
    return;
  }
  const status = error.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.on("data", () => {});
  socket.once("end", () => socket.destroy());
  // A client that never stops sending is not read for ever.
  socket.setTimeout(CLIENT_ERROR_DRAIN_MS, () => socket.destroy());
}

/** How long a refused connection is read and dropped before it is cut. */
const CLIENT_ERROR_DRAIN_MS = 10_000;

/** Writes `response` to `outgoing`: headers first and at once, then the body as the socket takes it. */
async function send(response: Response, outgoing: ServerResponse, left: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = (response.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  outgoing.writeHead(response.status, response.statusText, headers);
  if (!response.body) {
    outgoing.end();
    return;
  }
  outgoing.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel(left.reason).catch(() => {});
  if (left.aborted) return cancel();
  left.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!outgoing.write(value)) await drained(outgoing);
    }
    outgoing.end();
  } catch {
    // The body's stream failed, or the client left mid-write: nothing more can be sent.
    outgoing.destroy();
  } finally {
    left.removeEventListener("abort", cancel);
  }
}

/** Resolves once the socket takes more, or is gone. */
function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}
