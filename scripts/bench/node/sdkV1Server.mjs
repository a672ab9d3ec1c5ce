/**
 * The official SDK v1 server on `node:http`, sessionful Streamable HTTP as its documentation
 * writes it: one `McpServer` and one `StreamableHTTPServerTransport` per session, found by the
 * `mcp-session-id` header; the same one tool as `oneTool.ts`. `node sdkV1Server.mjs --port N`
 * prints `serving on <url>`. Binds 127.0.0.1.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const port = Number(process.argv[process.argv.indexOf("--port") + 1] ?? 0);
/** session id → its transport */
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: "bench-sdk-v1", version: "1.0.0" });
  server.registerTool("shout", { description: "Upper-cases a text", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }));
  return server;
}

function readJson(incoming) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    incoming.on("data", (chunk) => chunks.push(chunk));
    incoming.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch (error) {
        reject(error);
      }
    });
    incoming.on("error", reject);
  });
}

const http = createServer(async (incoming, outgoing) => {
  try {
    const id = incoming.headers["mcp-session-id"];
    if (incoming.method !== "POST") {
      const transport = id && transports.get(id);
      if (!transport) return void outgoing.writeHead(400).end("no session");
      return void (await transport.handleRequest(incoming, outgoing));
    }
    const body = await readJson(incoming);
    let transport = id ? transports.get(id) : undefined;
    if (!transport && !id && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => transports.set(sid, transport) });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    if (!transport) return void outgoing.writeHead(400).end("no session");
    await transport.handleRequest(incoming, outgoing, body);
  } catch (error) {
    if (!outgoing.headersSent) outgoing.writeHead(500);
    outgoing.end(String(error));
  }
});
// An exit of its own, so that a profile taken with --cpu-prof is written.
process.once("SIGTERM", () => process.exit(0));
http.listen(port, "127.0.0.1", () => console.log(`serving on http://127.0.0.1:${http.address().port}`));
