/**
 * `durable-mcp/node`: serving a server definition on Node over HTTP, with every endpoint the
 * Worker has (sessions in this process, in memory). Over stdin/stdout, use `durable-mcp/stdio`.
 *
 * @example
 * import { serveNode } from "durable-mcp/node";
 * import server from "./server.ts";
 * await serveNode(server); // --port N from the command line
 */
export { type NodeServer, serveNode, type ServeNodeOptions } from "./serveNode.ts";
export type { BeforeStage, Route } from "../shared/routes/createRouter.ts";
export { postgresStore, type PostgresStoreOptions } from "./postgresStore.ts";
export { memoryStore, type Store } from "../shared/runtime/Store.ts";
