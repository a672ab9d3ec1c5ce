/**
 * The server over stdin/stdout on Node: the entry a desktop client starts as a subprocess. While
 * it serves, console.log writes to stderr, so stdout carries MCP messages only. The `stdio`
 * script bundles this file with esbuild into dist/ first, then runs `node dist/stdio.mjs`.
 */
import { Readable, Writable } from "node:stream";
import { serveStdio } from "durable-mcp/stdio";
import server from "./server.ts";

await serveStdio({
  server,
  input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  env: process.env as Record<string, string>,
});
