/**
 * `npm run start:deno -- [--port N] [--kv PATH] [--server MODULE]`: serves a server definition
 * on Deno at http://127.0.0.1:N (default 8787) with every endpoint the Worker has (/sse,
 * /message, /mcp, /, /health). MODULE is a file whose default export is a server definition
 * (default: the example server); PATH keeps sessions in Deno KV across restarts (also the
 * `KV_PATH` variable). Prints `listening on <url>` once it accepts connections.
 */
import { McpServer } from "../shared/server/McpServer.ts";
import { serveHttp } from "./serveHttp.ts";

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 ? Deno.args[at + 1] : undefined;
}

const port = Number(flag("port") ?? "8787");
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(flag("port"))}`);
  Deno.exit(2);
}
const module = flag("server");
const definition = (await import(module === undefined ? new URL("../example/server.ts", import.meta.url).href : new URL(module, `file://${Deno.cwd()}/`).href)).default;
if (!(definition instanceof McpServer)) {
  console.error(`${module} must default-export a server definition (defineServer(...))`);
  Deno.exit(2);
}
const env = Deno.env.toObject();
// Served on loopback: refuse other host names (DNS rebinding), as `npm start` does, unless configured.
env.ALLOWED_HOSTS ??= "localhost,127.0.0.1,[::1]";
const served = await serveHttp(definition, { port, kvPath: flag("kv") ?? env.KV_PATH, env });
console.log(`listening on ${served.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void served.shutdown().then(() => Deno.exit(0)));
