/**
 * A WebSocket as a `MessageStream`: MCP over WebSocket, one JSON-RPC message per text frame,
 * subprotocol "mcp" (what the TypeScript SDK's `WebSocketClientTransport` speaks). This is the
 * README's example of adding a transport from outside the core: this file and the two entries
 * that accept the upgrade (`webSocketWorker.ts` on Workers, `webSocketDeno.ts` on Deno) are all
 * of it; `serveMessages` does the rest. Web-standard `WebSocket` only, so both runtimes use it.
 *
 * The WebSocket API has no backpressure, so this adapter adds its own bounds:
 * - in: the client's messages wait unread in an `OutboundQueue` of their own, bounded by a
 *   `QueueBudget` made from `MAX_QUEUE_BYTES` / `MAX_QUEUE_MESSAGES` (the bound each of a
 *   session's queues has, reused rather than a second counter). A client that sends faster than
 *   the session reads (because it does not read our replies) is disconnected with 1008 once
 *   another message would pass either bound, rather than buffered without limit (a count alone
 *   would let a few messages of any size hold unbounded memory). An empty
 *   queue takes any one message, as the budget does; `serveMessages` refuses one past
 *   `MAX_BODY_BYTES`;
 * - out: a write waits while more than `MAX_BUFFERED_BYTES` are buffered in the socket (where the
 *   runtime reports `bufferedAmount`), so the session's own bounded queue is where messages wait.
 *
 * Not here: accepting the upgrade (runtime-specific), the spec's status for this transport
 * (WebSocket is not one of MCP's standard transports; custom transports are allowed).
 */
import { McpError } from "durable-mcp";
import { type Config, DEFAULT_CONFIG, frameSize, type MessageStream, OutboundQueue, QueueBudget } from "durable-mcp/transport";

/** The subprotocol MCP clients offer for WebSocket. */
export const SUBPROTOCOL = "mcp";
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
  const error = McpError.invalidRequest("This endpoint speaks MCP over WebSocket: send GET with Upgrade: websocket", 426);
  return Response.json({ jsonrpc: "2.0", id: null, error: error.toJsonRpc() }, { status: 426, headers: { upgrade: "websocket" } });
}

/** Whether the client offered the "mcp" subprotocol; answer with it only then (RFC 6455 §4.2.2). */
export function offersSubprotocol(request: Request): boolean {
  return (request.headers.get("sec-websocket-protocol") ?? "").split(",").some((p) => p.trim() === SUBPROTOCOL);
}

/** A binary frame's place in the unread queue: it carries no message, only the error it is answered with. */
const BINARY = new Uint8Array(0);

/**
 * The socket (accepted on Workers, or upgrading on Deno) as the session's message stream.
 *
 * @param limits The unread bound: `readConfig(env)`, so `MAX_QUEUE_BYTES` / `MAX_QUEUE_MESSAGES` set it.
 * @example serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket, readConfig(env)), env })
 */
export function webSocketMessages(socket: WebSocket, limits: Pick<Config, "maxQueueBytes" | "maxQueueMessages"> = DEFAULT_CONFIG): MessageStream {
  const opened = new Promise<void>((resolve) => {
    if (socket.readyState === OPEN) resolve();
    else socket.addEventListener("open", () => resolve(), { once: true });
  });
  const unread = new OutboundQueue<string | Uint8Array>(QueueBudget.fromConfig(limits));
  let ended = false;
  let wakeEnded: () => void = () => {};
  const whenEnded = new Promise<void>((resolve) => (wakeEnded = resolve));
  const end = () => {
    ended = true;
    wakeEnded();
  };
  socket.addEventListener("message", (event) => {
    if (ended) return;
    const frame = typeof event.data === "string" ? event.data : BINARY;
    if (!unread.budget.fits(frameSize(frame))) {
      socket.close(1008, `More than ${limits.maxQueueBytes} bytes of messages unread (MAX_QUEUE_BYTES); read the replies`);
      return end();
    }
    unread.push(frame);
  });
  socket.addEventListener("close", end);
  socket.addEventListener("error", end);
  // Pulled one message per read, so the queue above is the only place messages wait (high-water mark 0).
  const readable = new ReadableStream<string | McpError>(
    {
      async pull(controller) {
        while (unread.empty && !ended) await Promise.race([unread.whenData(), whenEnded]);
        const frame = unread.shift();
        if (frame === undefined) controller.close();
        else controller.enqueue(typeof frame === "string" ? frame : McpError.invalidRequest("Binary WebSocket frames carry no MCP message; send each message as a text frame"));
      },
      cancel() {
        unread.clear();
        socket.close(1000, "session ended");
      },
    },
    new CountQueuingStrategy({ highWaterMark: 0 }),
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
