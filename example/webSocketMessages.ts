/**
 * A WebSocket as a `MessageStream`: MCP over WebSocket, one JSON-RPC message per text frame,
 * subprotocol "mcp" (what the TypeScript SDK's `WebSocketClientTransport` speaks). This is the
 * README's example of adding a transport from outside the core: this file and the two entries
 * that accept the upgrade (`webSocketWorker.ts` on Workers, `webSocketDeno.ts` on Deno) are all
 * of it; `serveMessages` does the rest. Web-standard `WebSocket` only, so both runtimes use it.
 *
 * The WebSocket API has no backpressure, so this adapter adds its own bounds:
 * - in: at most `MAX_UNREAD_MESSAGES` of the client's messages wait unread; a client that sends
 *   faster than the session reads (because it does not read our replies) is disconnected with
 *   1008 rather than buffered without limit;
 * - out: a write waits while more than `MAX_BUFFERED_BYTES` are buffered in the socket (where the
 *   runtime reports `bufferedAmount`), so the session's own bounded queue is where messages wait.
 *
 * Not here: accepting the upgrade (runtime-specific), the spec's status for this transport
 * (WebSocket is not one of MCP's standard transports; custom transports are allowed).
 */
import { ErrorCode, McpError } from "durable-mcp";
import type { MessageStream } from "durable-mcp/transport";

/** The subprotocol MCP clients offer for WebSocket. */
export const SUBPROTOCOL = "mcp";
/** Client messages waiting for the session to read them before the client is cut off. */
export const MAX_UNREAD_MESSAGES = 256;
/** Bytes the socket may hold unsent before our writes wait. */
export const MAX_BUFFERED_BYTES = 1_048_576;
/** How often a waiting write looks at `bufferedAmount` again (the API has no drain event). */
const DRAIN_POLL_MS = 10;
const OPEN = 1;

/**
 * The answer for a request that must not become a WebSocket, else undefined: not an upgrade (426).
 * A foreign Host or Origin never gets this far: the router refuses it (403) before any route of
 * yours runs, which here also stops cross-site WebSocket hijacking.
 */
export function refuseUpgrade(request: Request): Response | undefined {
  if (request.method === "GET" && request.headers.get("upgrade")?.toLowerCase() === "websocket") return undefined;
  const error = new McpError(426, ErrorCode.InvalidRequest, "This endpoint speaks MCP over WebSocket: send GET with Upgrade: websocket");
  return Response.json({ jsonrpc: "2.0", id: null, error: error.toJsonRpc() }, { status: 426, headers: { upgrade: "websocket" } });
}

/** Whether the client offered the "mcp" subprotocol; answer with it only then (RFC 6455 §4.2.2). */
export function offersSubprotocol(request: Request): boolean {
  return (request.headers.get("sec-websocket-protocol") ?? "").split(",").some((p) => p.trim() === SUBPROTOCOL);
}

/** The socket (accepted on Workers, or upgrading on Deno) as the session's message stream. */
export function webSocketMessages(socket: WebSocket): MessageStream {
  const opened = new Promise<void>((resolve) => {
    if (socket.readyState === OPEN) resolve();
    else socket.addEventListener("open", () => resolve(), { once: true });
  });
  const readable = new ReadableStream<string | McpError>(
    {
      start(controller) {
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          controller.close();
        };
        socket.addEventListener("message", (event) => {
          if (ended) return;
          controller.enqueue(typeof event.data === "string" ? event.data : McpError.invalidRequest("Binary WebSocket frames carry no MCP message; send each message as a text frame"));
          if ((controller.desiredSize ?? 0) < 0) {
            socket.close(1008, `More than ${MAX_UNREAD_MESSAGES} messages unread; read the replies`);
            end();
          }
        });
        socket.addEventListener("close", end);
        socket.addEventListener("error", end);
      },
      cancel() {
        socket.close(1000, "session ended");
      },
    },
    new CountQueuingStrategy({ highWaterMark: MAX_UNREAD_MESSAGES }),
  );
  const writable = new WritableStream<string>({
    async write(text) {
      await opened;
      if (socket.readyState !== OPEN) throw new Error("the WebSocket is closed");
      socket.send(text);
      while (((socket as { bufferedAmount?: number }).bufferedAmount ?? 0) > MAX_BUFFERED_BYTES && socket.readyState === OPEN) {
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
    },
    close() {
      socket.close(1000, "session ended");
    },
    abort() {
      socket.close(1011, "server error");
    },
  });
  return { readable, writable };
}
