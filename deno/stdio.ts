/**
 * The example server over stdin/stdout, under Deno: the entry a desktop client (Claude Desktop,
 * Cursor, …) starts as a subprocess. `npm run --silent stdio` runs it; see the README.
 *
 * This file only wires the process to `serveStdio` and decides the exit code: 0 when stdin
 * closes (the client's way to stop a stdio server), 1 if serving itself fails. The framing lives
 * in `shared/stdio/`; the session, both protocol eras and the error answers in
 * `shared/transport/serveMessages.ts`.
 *
 * Permissions: --allow-env (limits, LOG_LEVEL and NWS_BASE_URL come from the environment) and
 * --allow-net (the example's weather tools call api.weather.gov). Nothing is read from disk at
 * run time, and nothing listens. (tsc sees `Deno` through `deno/deno.d.ts`.)
 */
import server from "../example/server.ts";
import { serveStdio } from "../shared/stdio/serveStdio.ts";

// stdout carries MCP messages and nothing else (transports spec, "stdio"): a stray console.log,
// ours or a tool's, would corrupt the stream, so every console level goes to stderr.
console.log = console.info = console.debug = console.error;

try {
  await serveStdio({ server, input: Deno.stdin.readable, output: Deno.stdout.writable, env: Deno.env.toObject() });
} catch (error) {
  console.error(JSON.stringify({ level: "error", event: "stdio.failed", message: String(error), stack: (error as Error)?.stack }));
  Deno.exit(1);
}
// The client is gone: a handler's stray timer or socket must not keep the process alive.
Deno.exit(0);
