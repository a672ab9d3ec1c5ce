/**
 * The server on Deno, every endpoint the Worker has, sessions in this process's memory:
 * `deno run --allow-net --allow-env src/deno.ts [--port N] [--kv PATH]` (with `--kv`, in Deno KV
 * at PATH across restarts: add `--allow-read --allow-write --unstable-kv`).
 */
import { serveDeno } from "durable-mcp/deno";
import server from "./server.ts";

await serveDeno(server);
