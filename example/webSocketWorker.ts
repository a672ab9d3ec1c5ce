/**
 * The example server on Workers plus one transport of our own: MCP over WebSocket at `/ws`
 * (`webSocketMessages.ts`). Every other path is the standard Worker, `createWorker`, unchanged.
 * Run it with `npx wrangler dev example/webSocketWorker.ts`.
 *
 * Each socket is one session, served by `serveMessages` in the Worker that accepted the upgrade,
 * for as long as the socket is open. (A production design would forward the upgrade to a
 * Durable Object with `stub.fetch(request)` and serve it there, so the session could use the
 * object's storage and the hibernation API; the transport code would be the same.)
 */
import { readConfig } from "../shared/config/readConfig.ts";
import { serveMessages } from "../shared/transport/serveMessages.ts";
import type { Env } from "../worker/Env.ts";
import { createWorker } from "../worker/createWorker.ts";
import server from "./server.ts";
import { offersSubprotocol, refuseUpgrade, SUBPROTOCOL, webSocketMessages } from "./webSocketMessages.ts";

export { McpSession, McpWatch } from "../worker/index.ts";

const http = createWorker(server);

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== "/ws") return http.fetch!(request, env, ctx);
    const refused = refuseUpgrade(request, readConfig(env));
    if (refused) return refused;
    const { 0: client, 1: socket } = new WebSocketPair();
    socket.accept();
    ctx.waitUntil(serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket), env }));
    const headers: HeadersInit = offersSubprotocol(request) ? { "sec-websocket-protocol": SUBPROTOCOL } : {};
    return new Response(null, { status: 101, webSocket: client, headers });
  },
} satisfies ExportedHandler<Env>;
