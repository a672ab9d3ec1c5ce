/**
 * The example server on Node, every endpoint the Worker has (sessions in memory, in this
 * process). Node 20 runs no TypeScript: bundle it first (`esbuild example/node.ts --bundle
 * --platform=node --format=esm --outfile=server.mjs`), or run it with a TypeScript-aware Node;
 * then `node server.mjs --port N`.
 */
import { serveNode } from "durable-mcp/node";
import server from "./server.ts";

await serveNode(server);
