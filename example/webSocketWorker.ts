/**
 * The example server on Workers plus one transport of our own: MCP over WebSocket at `/ws`
 * (`webSocketMessages.ts`), added as a route of ours; every other path is the standard Worker.
 * Run it with `npx wrangler dev example/webSocketWorker.ts`.
 *
 * Each socket is one session, served by `serveMessages` in the Worker that accepted the upgrade,
 * for as long as the socket is open. (A production design would forward the upgrade to a
 * Durable Object with `stub.fetch(request)` and serve it there, so the session could use the
 * object's storage and the hibernation API; the transport code would be the same.)
 */
import { createWorker } from "durable-mcp/cloudflare";
import { readConfig, serveMessages } from "durable-mcp/transport";
import server from "./server.ts";
import { offersSubprotocol, refuseUpgrade, SUBPROTOCOL, webSocketMessages } from "./webSocketMessages.ts";

const worker = createWorker(server, {
  routes: [
    {
      method: "ALL",
      path: "/ws",
      description: "MCP over WebSocket (subprotocol mcp): one session per socket",
      handle(request, env, context) {
        const refused = refuseUpgrade(request);
        if (refused) return refused;
        const { 0: client, 1: socket } = new WebSocketPair();
        socket.accept();
        (context as ExecutionContext).waitUntil(serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket, readConfig(env)), env }));
        const headers: HeadersInit = offersSubprotocol(request) ? { "sec-websocket-protocol": SUBPROTOCOL } : {};
        return new Response(null, { status: 101, webSocket: client, headers });
      },
    },
  ],
});
export class McpSession extends worker.McpSession {}
export class McpWatch extends worker.McpWatch {}
export class McpHome extends worker.McpHome {}
export class McpTask extends worker.McpTask {}
export default { fetch: worker.fetch };
