/**
 * Test helper: bytes written by hand on a TCP socket of our own (`node:net`), and what the server
 * sends back until it closes the connection or the first response ends — for what `fetch` cannot
 * send (a request target that is not a path, a body that never finishes) or cannot show (a
 * connection closed, from which local address).
 *
 * Not here: chunked answers decoded, several responses on one connection.
 *
 * @example
 * const answer = await rawExchange(url, "GET //localhost/health HTTP/1.1\r\nHost: evil.test\r\n\r\n");
 * expect(answer.status).toBe(400);
 */
import { connect, type Socket } from "node:net";

/** How long an exchange may take before the helper gives up (the machine may be busy). */
const EXCHANGE_TIMEOUT_MS = 20_000;
const HEAD_END = "\r\n\r\n";

export interface RawAnswer {
  /** 0 when the connection closed before a status line. */
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  /** The whole of what arrived, as Latin-1 text. */
  text: string;
  /** Whether the server closed the connection (or reset it) rather than the helper. */
  closed: boolean;
}

/** Opens a connection to `url`'s host and port, from `localAddress` if given (127.0.0.2 is loopback too on Linux). */
export function openRaw(url: string, localAddress?: string): Promise<Socket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.hostname, port: Number(target.port), ...(localAddress ? { localAddress } : {}) });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/**
 * What `socket` receives from now on, until the first response has ended (by its Content-Length)
 * or the connection closes — with `untilClose`, until it closes, for an answer that says
 * `Connection: close`; `written` is sent first.
 */
export function readAnswer(socket: Socket, written = "", { untilClose = false } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let text = "";
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.off("data", onData).off("close", onClose).off("error", onError);
      const at = text.indexOf(HEAD_END);
      const [statusLine = "", ...lines] = (at < 0 ? "" : text.slice(0, at)).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text, closed });
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const at = text.indexOf(HEAD_END);
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, at + 2))?.[1];
      if (!untilClose && at >= 0 && length !== undefined && text.length >= at + HEAD_END.length + Number(length)) finish(false);
    };
    const onClose = () => finish(true);
    // A reset after the answer is still a close; before it, the status stays 0.
    const onError = () => {};
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`No answer within ${EXCHANGE_TIMEOUT_MS} ms; received: ${JSON.stringify(text.slice(0, 200))}`));
    }, EXCHANGE_TIMEOUT_MS);
    socket.on("data", onData).once("close", onClose).on("error", onError);
    if (written) socket.write(written);
  });
}

/** One request written as is on a fresh connection, and its answer (`readAnswer`); the connection is then closed. */
export async function rawExchange(url: string, request: string, options: { untilClose?: boolean } = {}): Promise<RawAnswer> {
  const socket = await openRaw(url);
  try {
    return await readAnswer(socket, request, options);
  } finally {
    socket.destroy();
  }
}

/** A GET of `target` (sent as written, whatever its form) with `host` in its Host header, on a connection of its own. */
export function rawGet(url: string, target: string, host: string): Promise<RawAnswer> {
  return rawExchange(url, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n\r\n`);
}
