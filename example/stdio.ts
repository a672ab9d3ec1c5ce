/**
 * The example server over stdin/stdout, under Deno: the entry a desktop client (Claude Desktop,
 * Cursor, …) starts as a subprocess. `npm run --silent stdio` runs it; see the README.
 *
 * Permissions: --allow-env (limits, LOG_LEVEL and NWS_BASE_URL come from the environment) and
 * --allow-net (the weather tools call api.weather.gov). Nothing is read from disk at run time,
 * and nothing listens.
 */
import { serveDenoStdio } from "durable-mcp/deno";
import server from "./server.ts";

await serveDenoStdio(server);
