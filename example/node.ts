/**
 * The example server on Node, every endpoint the Worker has: `npm run start:node -- --port N`.
 * Sessions and homes are kept in PostgreSQL with `--store postgres://…` (or `DATABASE_URL`),
 * else in memory, lost on restart. Node 20 runs no TypeScript: the script bundles it first, as
 * you would (`esbuild example/node.ts --bundle --platform=node --format=esm --outfile=server.mjs`,
 * then `node server.mjs --port N`), or run it with a TypeScript-aware Node.
 */
import { serveNode } from "durable-mcp/node";
import server from "./server.ts";

await serveNode(server);
