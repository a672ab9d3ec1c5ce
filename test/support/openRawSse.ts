/**
 * Test helper: an event-stream GET spoken as raw HTTP/1.1 over a TCP socket of our own
 * (`node:net`), so that a test can close the client's real connection with `destroy()` — what a
 * vanished client does to a server, which a cancelled `fetch` reader only imitates in-process.
 * The request bytes are written by hand; the response head is parsed, then the
 * body (chunked, by length, or until the socket ends) is handed to an `SseReader`.
 *
 * Not here: connection reuse, redirects, request bodies, anything but one GET.
 *
 * @example
 * const stream = await openRawSse(`${url}/sse`);
 * expect(stream.status).toBe(200);
 * const endpoint = await stream.reader.next();
 * stream.destroy(); // the server sees a closed TCP connection, nothing else
 */
import { connect } from "node:net";
import { SseReader } from "./SseReader.ts";

/** How long the response head may take before the helper gives up. */
const HEAD_TIMEOUT_MS = 10_000;
const HEAD_END = Buffer.from("\r\n\r\n");
const LINE_END = Buffer.from("\r\n");

export interface RawSse {
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  reader: SseReader;
  /** Closes the TCP connection now; the body, as this side sees it, just ends. */
  destroy(): void;
}

/** `headers` are added to `Host` and `Accept: text/event-stream` (and replace them, by lower-case name). */
export function openRawSse(url: string, headers: Record<string, string> = {}): Promise<RawSse> {
  const target = new URL(url);
  const fields: Record<string, string> = { host: target.host, accept: "text/event-stream" };
  for (const [name, value] of Object.entries(headers)) fields[name.toLowerCase()] = value;
  const head = [`GET ${target.pathname}${target.search} HTTP/1.1`, ...Object.entries(fields).map(([name, value]) => `${name}: ${value}`), "", ""].join("\r\n");

  const socket = connect({ host: target.hostname, port: Number(target.port) });
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const end = (error?: Error) => {
    if (ended) return;
    ended = true;
    if (error) controller.error(error);
    else controller.close();
  };

  return new Promise<RawSse>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`No response head from ${url} within ${HEAD_TIMEOUT_MS} ms`)), HEAD_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    let buffered = Buffer.alloc(0);
    let decode: ((bytes: Buffer) => void) | undefined;

    socket.on("data", (chunk: Buffer) => {
      if (decode) return decode(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      const at = buffered.indexOf(HEAD_END);
      if (at < 0) return;
      const [statusLine = "", ...lines] = buffered.subarray(0, at).toString("latin1").split("\r\n");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
      if (!status) return fail(new Error(`Not an HTTP/1.1 response from ${url}: ${JSON.stringify(statusLine)}`));
      const received: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        received[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      decode = bodyDecoder(received, (bytes) => !ended && controller.enqueue(bytes), end);
      clearTimeout(timer);
      resolve({
        status: Number(status),
        headers: received,
        reader: new SseReader(body),
        destroy: () => {
          socket.destroy();
          end();
        },
      });
      decode(buffered.subarray(at + HEAD_END.length));
    });
    socket.on("error", (error) => (decode ? end(error) : fail(error)));
    socket.on("close", () => (decode ? end() : fail(new Error(`${url} closed the connection before a response head`))));
    socket.write(head);
  });
}

/** A feeder for the body's bytes as they arrive, by the framing the head announced. */
function bodyDecoder(headers: Record<string, string>, emit: (bytes: Uint8Array) => void, end: (error?: Error) => void): (bytes: Buffer) => void {
  if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) return chunkedDecoder(emit, end);
  let left = headers["content-length"] === undefined ? Infinity : Number(headers["content-length"]);
  if (left === 0) end();
  return (bytes) => {
    const taken = bytes.subarray(0, Math.min(bytes.length, left));
    left -= taken.length;
    if (taken.length > 0) emit(new Uint8Array(taken));
    if (left === 0) end();
  };
}

/** RFC 9112 §7.1: `size[;ext]\r\n data \r\n` … `0\r\n\r\n` (trailers ignored). */
function chunkedDecoder(emit: (bytes: Uint8Array) => void, end: (error?: Error) => void): (bytes: Buffer) => void {
  let pending = Buffer.alloc(0);
  let done = false;
  return (bytes) => {
    pending = Buffer.concat([pending, bytes]);
    while (!done) {
      const lineEnd = pending.indexOf(LINE_END);
      if (lineEnd < 0) return;
      const line = pending.subarray(0, lineEnd).toString("latin1");
      const size = Number.parseInt(line.split(";")[0]!, 16);
      if (!Number.isFinite(size) || size === 0) {
        done = true;
        return end(size === 0 ? undefined : new Error(`Not a chunk size line: ${JSON.stringify(line)}`));
      }
      const start = lineEnd + LINE_END.length;
      if (pending.length < start + size + LINE_END.length) return;
      emit(new Uint8Array(pending.subarray(start, start + size)));
      pending = pending.subarray(start + size + LINE_END.length);
    }
  };
}
