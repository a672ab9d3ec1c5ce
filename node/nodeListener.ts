/**
 * `node:http` ↔ web-standard `Request`/`Response`, so the shared routes serve Node unchanged.
 * The request is a `NodeRequest`, made only as far as the route reads it (a server with routes or
 * stages of its own gets the platform's `Request` instead, which every web API accepts); its
 * signal is aborted when the client leaves before its answer is sent. An answer the routes made
 * from plain data (`plainAnswer`: the JSON replies, 202s and errors) is written as it is, with a
 * `Content-Length`, in one write; any other `Response` has its status and headers sent at once
 * (an event stream's first bytes are not held back), its body written with the socket's
 * backpressure and cancelled when the client leaves, which is how a session learns its stream
 * closed. Every status line carries its standard reason phrase. The URL is the Host header's
 * authority and the target's path (`requestUrl`); a request that has none is refused 400 here,
 * as workerd and Deno refuse a malformed Host before the Worker sees it.
 *
 * A request answered before its body was read (a 413 by its declared length, a body cut off at
 * the limit) is answered once the rest of its body has been read and dropped
 * (`NodeRequest.discard`), so that the connection can carry the next request and a client still
 * sending reads the answer rather than a reset; past the linger bounds it is answered with
 * `Connection: close` instead. A header block past Node's limit (`refuseClientError`) gets its
 * 431, and the connection is read to its end for the same reason.
 *
 * Written here rather than taken from an adapter package: the ones that fit (`@hono/node-server`)
 * need Hono as a peer and replace the process's global `Request` and `Response` by default.
 */
import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { plainAnswer, type TextAnswer } from "../shared/http/Answer.ts";
import { NodeRequest } from "./NodeRequest.ts";
import { requestUrl } from "./requestUrl.ts";

/** What the shared router is: a request, its client's address, its answer. */
export type FetchHandler = (request: Request, address: string | undefined) => Promise<Response>;

export interface NodeListenerOptions {
  /** Hand `handle` the platform's own `Request`s (for routes and stages other than the project's). Default false: `NodeRequest`s. */
  platformRequests?: boolean;
}

/** A `node:http` request listener serving `handle`. Never rejects: a failure ends the response. */
export function nodeListener(handle: FetchHandler, { platformRequests = false }: NodeListenerOptions = {}): (incoming: IncomingMessage, outgoing: ServerResponse) => void {
  return (incoming, outgoing) => {
    void serve(handle, incoming, outgoing, platformRequests).catch(() => outgoing.destroy());
  };
}

async function serve(handle: FetchHandler, incoming: IncomingMessage, outgoing: ServerResponse, platformRequests: boolean): Promise<void> {
  const url = requestUrl(hostOf(incoming.rawHeaders), incoming.url ?? "/");
  if (!(url instanceof URL)) {
    outgoing.shouldKeepAlive = false;
    outgoing.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end(url.refused);
    return;
  }
  const request = new NodeRequest(incoming, url.href);
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) request.leave(new Error("The client closed the connection"));
  });
  const response = await handle(platformRequests ? request.toRequest() : (request as unknown as Request), incoming.socket.remoteAddress);
  // A body the route left unread, or stopped reading at its limit, is read to its end first.
  if (!(await request.discard())) outgoing.shouldKeepAlive = false;
  const plain = plainAnswer(response);
  // A browser's request (one with an Origin) may have had CORS headers set on its answer (`withCors`).
  if (plain) writePlain(plain, hasOrigin(incoming.rawHeaders) ? headersOf(response) : plain.headers, outgoing);
  else await send(response, outgoing, request.signal);
}

/** Whether the raw list holds an Origin header. */
function hasOrigin(raw: string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 6 && raw[i]!.toLowerCase() === "origin") return true;
  return false;
}

/** The first Host header's value, read from the raw list (Node keeps the first of repeated ones too). */
function hostOf(raw: string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === "host") return raw[i + 1];
  }
  return undefined;
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

/** Writes a whole answer: status line, headers and a `Content-Length`, then its body, in one write. */
function writePlain({ status, body }: TextAnswer, headers: OutgoingHttpHeaders | undefined, outgoing: ServerResponse): void {
  const out: OutgoingHttpHeaders = { ...headers };
  if (body === undefined) {
    outgoing.writeHead(status, emptyBody(status, out)).end();
    return;
  }
  out["content-length"] = Buffer.byteLength(body);
  outgoing.writeHead(status, out).end(body);
}

/** `headers` for an answer without a body: `Content-Length: 0`, where a status may have a body (Node would otherwise frame nothing as chunked). */
function emptyBody<H extends OutgoingHttpHeaders>(status: number, headers: H): H {
  if (status !== 204 && status !== 304 && status >= 200) (headers as OutgoingHttpHeaders)["content-length"] = 0;
  return headers;
}

/** `response`'s headers for `node:http`, each `Set-Cookie` on its own. */
function headersOf(response: Response): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = (response.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  return headers;
}

/** Writes `response` to `outgoing`: headers first and at once, then the body as the socket takes it. */
async function send(response: Response, outgoing: ServerResponse, left: AbortSignal): Promise<void> {
  const headers = headersOf(response);
  const reason = response.statusText || STATUS_CODES[response.status];
  if (!response.body) {
    outgoing.writeHead(response.status, reason, emptyBody(response.status, headers)).end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel(left.reason).catch(() => {});
  if (left.aborted) return cancel();
  left.addEventListener("abort", cancel, { once: true });
  try {
    let next = reader.read();
    if (String(headers["content-type"]).startsWith("text/event-stream")) {
      outgoing.writeHead(response.status, reason, headers);
      outgoing.flushHeaders();
    } else {
      // Any other body that ends with its first chunk (`Response.json`, a page) goes whole, with a
      // Content-Length; one that goes on is streamed from that chunk, without waiting for more.
      const first = await next;
      if (first.done) return void outgoing.writeHead(response.status, reason, emptyBody(response.status, headers)).end();
      next = reader.read();
      const second = await Promise.race([next, nextTurn()]);
      if (second?.done) {
        headers["content-length"] = String(first.value.byteLength);
        return void outgoing.writeHead(response.status, reason, headers).end(first.value);
      }
      outgoing.writeHead(response.status, reason, headers);
      if (!outgoing.write(first.value)) await drained(outgoing);
    }
    for (;;) {
      const { done, value } = await next;
      if (done) break;
      if (!outgoing.write(value)) await drained(outgoing);
      next = reader.read();
    }
    outgoing.end();
  } catch {
    // The body's stream failed, or the client left mid-write: nothing more can be sent.
    outgoing.destroy();
  } finally {
    left.removeEventListener("abort", cancel);
  }
}

/** Resolves after what is already queued (promise reactions) has run. */
function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => setImmediate(() => resolve(undefined)));
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
