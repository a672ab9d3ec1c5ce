/**
 * `durable-mcp/stdio`: a server definition over a pair of byte streams, the stdio transport
 * (newline-delimited JSON-RPC), on any runtime that gives you streams. On Deno,
 * `serveDenoStdio` from `durable-mcp/deno` does the wiring to the process for you.
 *
 * @example
 * // Node
 * import { Readable, Writable } from "node:stream";
 * await serveStdio({ server, input: Readable.toWeb(process.stdin), output: Writable.toWeb(process.stdout) });
 */
export { lineMessages, serveStdio, type StdioOptions } from "./stdio/serveStdio.ts";
