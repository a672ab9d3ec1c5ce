/**
 * The server on Node over HTTP, every endpoint the Worker has, sessions in this process's memory.
 * Node 20 runs no TypeScript: the `start` script bundles this file with esbuild into dist/ first,
 * then runs `node dist/node.mjs [--port N]`.
 */
import { serveNode } from "durable-mcp/node";
import server from "./server.ts";

await serveNode(server);
