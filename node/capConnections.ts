/**
 * Open connections counted per client address (`MAX_CONNECTIONS_PER_ADDRESS`; an IPv6 address by
 * its /64, as rate limits count it): a connection past its address's cap is still accepted, but
 * each request on it is answered 429 with `Retry-After` and `Connection: close` and reaches no
 * route, so the client reads why rather than meeting a reset. Other addresses are served as
 * before. A connection counts from its accept to its close; a refused one is not counted, and one
 * that sends nothing is cut by Node's headers timeout like any other.
 *
 * Not here: a total over all addresses, and anything behind a proxy (`TRUST_PROXY`): there every
 * connection is the proxy's, which bounds its own clients.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { addressKey } from "../shared/shares/addressKey.ts";
import { McpError } from "../shared/errors/McpError.ts";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { errorResponse } from "../shared/http/errorResponse.ts";

/** What a client past the cap is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Counts `server`'s connections by address from now on; the returned check says whether a
 * socket is one past its address's cap of `max`.
 *
 * @example
 * const refuses = capConnections(http, 64);
 * http.on("request", (incoming, outgoing) => (refuses(incoming.socket) ? refuse : serve)(incoming, outgoing));
 */
export function capConnections(server: Server, max: number): (socket: Socket) => boolean {
  const open = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  server.on("connection", (socket: Socket) => {
    // A socket already closed has no address, and nothing to count.
    if (socket.remoteAddress === undefined) return;
    const key = addressKey(socket.remoteAddress);
    const count = (open.get(key) ?? 0) + 1;
    if (count > max) return void refused.add(socket);
    open.set(key, count);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
  return (socket) => refused.has(socket);
}

/** The answer to every request on a connection past its address's cap. */
export function tooManyConnections(max: number): Response {
  return errorResponse(
    new McpError(
      429,
      ErrorCode.ServerBusy,
      `This address holds ${max} open connections to this server, its most (MAX_CONNECTIONS_PER_ADDRESS); close or reuse one, and retry after ${RETRY_AFTER_SECONDS}s`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
      { "retry-after": String(RETRY_AFTER_SECONDS), connection: "close" },
    ),
  );
}
