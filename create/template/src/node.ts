/**
 * The server on Node over HTTP, every endpoint the Worker has. State is in this process's memory,
 * or in PostgreSQL with `--store postgres://…` or `DATABASE_URL` (the `postgres` driver, an
 * optional dependency of this project).
 * Node 20 runs no TypeScript: the `start` script bundles this file with esbuild into dist/ first,
 * then runs `node dist/node.mjs [--port N]`.
 */
import { serveNode } from "durable-mcp/node";
import server from "./server.ts";

await serveNode(server);
