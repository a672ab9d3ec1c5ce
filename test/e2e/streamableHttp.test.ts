/**
 * The example server over Streamable HTTP (`/mcp`), driven by the official SDK client
 * (`StreamableHTTPClientTransport`), next to legacy clients on the same deployment.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ vars: { LOG_LEVEL: "error" } });
});
afterAll(() => server?.dispose());

async function connect() {
  const client = new Client({ name: "streamable-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", server.url));
  await client.connect(transport);
  return { client, transport };
}

describe("official SDK client over Streamable HTTP", () => {
  it("initializes a session, lists tools and calls one", async () => {
    const { client, transport } = await connect();
    expect(transport.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(client.getServerVersion()).toEqual({ name: "my-weather-server", version: "0.0.1" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("getScore");
    expect(await client.callTool({ name: "getScore", arguments: { name: "lisi" } })).toEqual({ content: [{ type: "text", text: '"80.0"' }], isError: false });
    await client.ping();
    await transport.terminateSession();
    await client.close();
  });

  it("keeps per-session state, and serves legacy and Streamable clients from one deployment at once", async () => {
    const a = await connect();
    const legacy = new Client({ name: "legacy", version: "1.0.0" });
    await legacy.connect(new SSEClientTransport(new URL("/sse", server.url)));
    await a.client.callTool({ name: "notepad", arguments: { action: "add", text: "streamable note" } });
    await legacy.callTool({ name: "notepad", arguments: { action: "add", text: "legacy note" } });
    const notesA: any = await a.client.callTool({ name: "notepad", arguments: { action: "list" } });
    const notesLegacy: any = await legacy.callTool({ name: "notepad", arguments: { action: "list" } });
    expect(notesA.content[0].text).toBe("1. streamable note");
    expect(notesLegacy.content[0].text).toBe("1. legacy note");
    await a.client.close();
    await legacy.close();
  });
});
