/**
 * A Node server with a route and a stage of its own (`test/fixtures/nodeOwnRoutes.ts`): they get
 * a `Request` that web code may copy and read as any (`new Request(request)`, `json()`), over real
 * HTTP; the stage runs before the MCP routes, which still answer a call.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startNodeServer } from "../../scripts/startNodeServer.mjs";

let server: Awaited<ReturnType<typeof startNodeServer>>;
beforeAll(async () => {
  server = await startNodeServer({ main: "test/fixtures/nodeOwnRoutes.ts", vars: { LOG_LEVEL: "error" } });
});
afterAll(async () => {
  await server?.dispose();
});

it("hands its own route a Request it can copy and read", async () => {
  const response = await fetch(`${server.url}/echo`, { method: "POST", headers: { "content-type": "application/json", "x-echo": "seen" }, body: JSON.stringify({ hello: "wörld" }) });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-length")).toMatch(/^\d+$/);
  expect(await response.json()).toEqual({ body: { hello: "wörld" }, header: "seen" });
});

it("runs its own stage first, and serves the MCP routes after it", async () => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "shout", arguments: { text: "own" }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } });
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "shout" };
  const refused = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, "x-refuse": "1" }, body });
  expect(refused.status).toBe(403);
  expect(await refused.text()).toBe("refused");
  const answered = await fetch(`${server.url}/mcp`, { method: "POST", headers, body });
  expect(answered.status).toBe(200);
  expect(await answered.json()).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "OWN" }] } });
});
