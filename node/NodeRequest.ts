/**
 * A web `Request` over a `node:http` request, made only as far as it is read: the URL and method
 * at once; the `Headers` (every one, repeated ones too) on first read; the body read straight
 * from the socket into bytes by `arrayBuffer()`/`text()`/`json()`, or as a web stream (`body`)
 * when asked for it, the socket paused while its reader is behind; the signal, aborted when the
 * client leaves before its answer is sent, made on first read. A small JSON POST thus costs no
 * stream, no controller and no `Request` of the platform's. Anything else a `Request` has
 * (`clone()`, `formData()`, `cache`, …) is answered by a real `Request` made from this one on
 * first use. It is an instance of `Request`, but the platform's own functions that take a
 * `Request` (`new Request(request)`, `fetch(request)`) do not accept it: the routes of the project
 * get it, a server's own routes and stages get real ones (`nodeListener`).
 *
 * `discard()` reads a body the route left unread, or stopped reading, to its end and drops it.
 */
import type { IncomingMessage } from "node:http";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { McpError } from "../shared/errors/McpError.ts";

/** Bytes of a request's body held ahead of the stream's reader before the socket is paused. */
const BODY_BUFFER_BYTES = 64 * 1024;

/** How long, and how much more, a request's unread body is read and dropped before `discard()` gives up. */
const BODY_LINGER_MS = 1_000;
const BODY_LINGER_BYTES = 1024 * 1024;

const utf8 = new TextDecoder();

export class NodeRequest {
  readonly #url: string;
  readonly #method: string;
  readonly #incoming: IncomingMessage;
  /** Whether the request has a body to read: GET and HEAD carry none (Node drops what comes). */
  readonly #hasBody: boolean;
  #headers: Headers | undefined;
  #controller: AbortController | undefined;
  /** Why the client left, once it has. */
  #left: Error | undefined;
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;
  /** Once the route is done with the body (cancelled, or discarding): the stream takes nothing more. */
  #dropping = false;
  #request: Request | undefined;

  constructor(incoming: IncomingMessage, url: string) {
    this.#incoming = incoming;
    this.#url = url;
    this.#method = incoming.method ?? "GET";
    this.#hasBody = this.#method !== "GET" && this.#method !== "HEAD";
  }

  get url(): string {
    return this.#url;
  }

  get method(): string {
    return this.#method;
  }

  get headers(): Headers {
    if (this.#headers) return this.#headers;
    const headers = new Headers();
    const raw = this.#incoming.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    return (this.#headers = headers);
  }

  /** Aborted, with why, once the client has closed its connection before its answer was sent. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#left) this.#controller.abort(this.#left);
    }
    return this.#controller.signal;
  }

  /** The client closed its connection before its answer was sent. */
  leave(reason: Error): void {
    this.#left = reason;
    this.#controller?.abort(reason);
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#hasBody) return null;
    // A body already read whole (`arrayBuffer()`) leaves an empty stream behind.
    return (this.#stream ??= this.#used ? new ReadableStream({ start: (controller) => controller.close() }) : this.#webStream());
  }

  get bodyUsed(): boolean {
    return this.#used || this.#stream?.locked === true;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer as ArrayBuffer;
  }

  async text(): Promise<string> {
    return utf8.decode(await this.#bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** The platform's `Request` for this one (its body this one's stream), for what only it has. */
  toRequest(): Request {
    if (this.#request) return this.#request;
    const body = this.body;
    const init = { method: this.#method, headers: this.headers, signal: this.signal, ...(body ? { body, duplex: "half" } : {}) };
    return (this.#request = new Request(this.#url, init as RequestInit));
  }

  /**
   * Reads the body's rest, if the route left any, and drops it: resolves true once it has all
   * arrived, false past BODY_LINGER_MS or BODY_LINGER_BYTES. The socket is never destroyed for
   * it, so the answer still reaches the client.
   */
  discard(): Promise<boolean> {
    const incoming = this.#incoming;
    if (!this.#hasBody || incoming.readableEnded) return Promise.resolve(true);
    this.#dropping = true;
    return new Promise<boolean>((resolve) => {
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
  }

  /** The whole body, read from the socket (or from the stream, once one was made), copied out of Node's pooled buffers. */
  #bytes(): Promise<Uint8Array> {
    if (this.#used) return Promise.reject(new TypeError("The request body has already been read"));
    this.#used = true;
    if (this.#stream) return new Response(this.#stream).arrayBuffer().then((buffer) => new Uint8Array(buffer));
    if (!this.#hasBody) return Promise.resolve(new Uint8Array(0));
    const incoming = this.#incoming;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.byteLength;
      });
      incoming.once("end", () => {
        const bytes = new Uint8Array(size);
        let at = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, at);
          at += chunk.byteLength;
        }
        resolve(bytes);
      });
      // The client left, or was cut off (Node's request timeout), mid-body: the request is
      // refused as such, not an error of the server's to log.
      incoming.once("error", () => reject(cutOff()));
    });
  }

  /** The body as a web stream, read as its reader reads it; cancelling it drops the rest. */
  #webStream(): ReadableStream<Uint8Array> {
    const incoming = this.#incoming;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          incoming.on("data", (chunk: Buffer) => {
            if (this.#dropping) return;
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
          });
          incoming.once("end", () => this.#dropping || controller.close());
          incoming.once("error", () => this.#dropping || controller.error(cutOff()));
        },
        pull: () => {
          incoming.resume();
        },
        cancel: () => {
          this.#dropping = true;
          incoming.resume();
        },
      },
      { highWaterMark: BODY_BUFFER_BYTES, size: (chunk) => chunk.byteLength },
    );
  }
}

// Everything else a `Request` has, from the platform's `Request` made on first use of it.
for (const name of Object.getOwnPropertyNames(Request.prototype)) {
  if (name === "constructor" || Object.hasOwn(NodeRequest.prototype, name)) continue;
  const member = Object.getOwnPropertyDescriptor(Request.prototype, name)!;
  Object.defineProperty(
    NodeRequest.prototype,
    name,
    typeof member.value === "function"
      ? { configurable: true, writable: true, value(this: NodeRequest, ...args: unknown[]) { return (this.toRequest() as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args); } }
      : { configurable: true, get(this: NodeRequest) { return (this.toRequest() as unknown as Record<string, unknown>)[name]; } },
  );
}
Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);

/** Why a body that stopped before its end was not read: the client's connection closed. */
function cutOff(): McpError {
  return new McpError(400, ErrorCode.InvalidRequest, "The request body did not arrive whole: its connection closed first");
}
