/**
 * The example server on Deno, every endpoint the Worker has: `npm run start:deno -- --port N
 * [--kv PATH]` runs it (sessions in memory, or in Deno KV at PATH across restarts).
 */
import { serveDeno } from "durable-mcp/deno";
import server from "./server.ts";

await serveDeno(server);
