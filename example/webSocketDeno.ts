/**
 * The example server on Deno plus MCP over WebSocket at `/ws` (`webSocketMessages.ts`): the
 * Deno twin of `webSocketWorker.ts`, the same route of ours given to `serveDeno`.
 *
 * `deno run --allow-net --allow-env example/webSocketDeno.ts --port 8787` (the `deno` npm package
 * works too: `npx deno run …`). Prints `serving on <url>`.
 */
import { serveDeno } from "durable-mcp/deno";
import { readConfig, serveMessages } from "durable-mcp/transport";
import server from "./server.ts";
import { offersSubprotocol, refuseUpgrade, SUBPROTOCOL, webSocketMessages } from "./webSocketMessages.ts";

await serveDeno(server, {
  routes: [
    {
      method: "ALL",
      path: "/ws",
      description: "MCP over WebSocket (subprotocol mcp): one session per socket",
      handle(request, env) {
        const refused = refuseUpgrade(request);
        if (refused) return refused;
        const { socket, response } = Deno.upgradeWebSocket(request, offersSubprotocol(request) ? { protocol: SUBPROTOCOL } : {});
        // A failure ends this socket's session only; it must not become an unhandled rejection (which ends the process).
        serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket, readConfig(env)), env }).catch((error) =>
          console.error(JSON.stringify({ level: "error", event: "websocket.failed", message: String(error) })),
        );
        return response;
      },
    },
  ],
});
