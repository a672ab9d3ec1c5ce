/**
 * The floor on Node: a bare `node:http` server that reads the POST body, parses the JSON-RPC
 * request, runs the one tool (`shout`) and answers its result as JSON with a `Content-Length`.
 * An `initialize` gets a session id, a notification 202, and a call carrying a session id is
 * answered the same as one without: the least work that carries the exchange, with no checks. `node bareServer.mjs --port N` prints
 * `serving on <url>`. Binds 127.0.0.1.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

const port = Number(process.argv[process.argv.indexOf("--port") + 1] ?? 0);

const http = createServer((incoming, outgoing) => {
  const chunks = [];
  incoming.on("data", (chunk) => chunks.push(chunk));
  incoming.on("end", () => {
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (message.id === undefined) return void outgoing.writeHead(202, { "content-length": "0" }).end();
    const headers = { "content-type": "application/json" };
    let result;
    if (message.method === "initialize") {
      headers["mcp-session-id"] = randomUUID();
      result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "1.0.0" } };
    } else {
      result = { content: [{ type: "text", text: String(message.params.arguments.text).toUpperCase() }] };
    }
    const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, result });
    headers["content-length"] = Buffer.byteLength(body);
    outgoing.writeHead(200, headers).end(body);
  });
});
// An exit of its own, so that a profile taken with --cpu-prof is written.
process.once("SIGTERM", () => process.exit(0));
http.listen(port, "127.0.0.1", () => console.log(`serving on http://127.0.0.1:${http.address().port}`));
