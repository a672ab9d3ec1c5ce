/**
 * The example server on Deno plus MCP over WebSocket at `/ws` (`webSocketMessages.ts`): the
 * Deno twin of `webSocketWorker.ts`. `deno/serveHttp.ts` serves every MCP endpoint; its `route`
 * option lets this file answer `/ws` first.
 *
 * `deno run --allow-net --allow-env example/webSocketDeno.ts --port 8787` (the `deno` npm package
 * works too: `npx deno run …`). Prints `listening on <url>`.
 */
import { serveHttp } from "../deno/serveHttp.ts";
import { readConfig } from "../shared/config/readConfig.ts";
import { serveMessages } from "../shared/transport/serveMessages.ts";
import server from "./server.ts";
import { offersSubprotocol, refuseUpgrade, SUBPROTOCOL, webSocketMessages } from "./webSocketMessages.ts";

const at = Deno.args.indexOf("--port");
const port = at >= 0 ? Number(Deno.args[at + 1]) : 8787;
const env = Deno.env.toObject();
env.ALLOWED_HOSTS ??= "localhost,127.0.0.1,[::1]";

function acceptWebSocket(request: Request): Response {
  const refused = refuseUpgrade(request, readConfig(env));
  if (refused) return refused;
  const { socket, response } = Deno.upgradeWebSocket(request, offersSubprotocol(request) ? { protocol: SUBPROTOCOL } : {});
  // A failure ends this socket's session only; it must not become an unhandled rejection (which ends the process).
  serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket), env }).catch((error) =>
    console.error(JSON.stringify({ level: "error", event: "websocket.failed", message: String(error) })),
  );
  return response;
}

const served = await serveHttp(server, {
  port,
  env,
  route: (request) => (new URL(request.url).pathname === "/ws" ? acceptWebSocket(request) : undefined),
});
console.log(`listening on ${served.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void served.shutdown().then(() => Deno.exit(0)));
