/**
 * Handlers that ask the client — sampling, elicitation, roots — with the official SDK client
 * answering, over Streamable HTTP and over legacy HTTP+SSE (the same handler API on both). A handler
 * whose client cannot answer fails on purpose; its `handler.error` line is captured and checked.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { handlerErrors, holdsMintedId, unexplained } from "../support/serverLogs.ts";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error" }, captureLogs: true });
});
afterAll(async () => {
  // Captured, not printed: whatever else the server logged fails the file.
  expect(unexplained(server?.logs() ?? [], { events: ["handler.error"] })).toEqual([]);
  await server?.dispose();
});

const transports = {
  "Streamable HTTP": () => new StreamableHTTPClientTransport(new URL("/mcp", server.url)),
  "HTTP+SSE": () => new SSEClientTransport(new URL("/sse", server.url)),
};

for (const [name, transport] of Object.entries(transports)) {
  describe(`requests to the client over ${name}`, () => {
    it("routes a sampling answer back to the waiting handler", async () => {
      const client = new Client({ name: "sampler", version: "1.0.0" }, { capabilities: { sampling: {} } });
      const asked: unknown[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        asked.push(request.params);
        return { role: "assistant", content: { type: "text", text: "forty-two" }, model: "test-model", stopReason: "endTurn" };
      });
      await client.connect(transport());
      const result: any = await client.callTool({ name: "test_sampling", arguments: { prompt: "What is six times seven?" } });
      expect(result.content[0].text).toBe("LLM response: forty-two");
      expect(asked).toEqual([{ messages: [{ role: "user", content: { type: "text", text: "What is six times seven?" } }], maxTokens: 100 }]);
      await client.close();
    });

    it("routes an elicitation answer back, and reports a declined one", async () => {
      const client = new Client({ name: "eliciter", version: "1.0.0" }, { capabilities: { elicitation: {} } });
      let action: "accept" | "decline" = "accept";
      client.setRequestHandler(ElicitRequestSchema, async () => (action === "accept" ? { action, content: { username: "ada", email: "ada@example.com" } } : { action }));
      await client.connect(transport());
      const accepted: any = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
      expect(accepted.content[0].text).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
      action = "decline";
      const declined: any = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
      expect(declined.content[0].text).toBe("User response: action=decline, content={}");
      await client.close();
    });

    it("gives the handler a readable error when the client lacks the capability", async () => {
      const client = new Client({ name: "plain", version: "1.0.0" });
      await client.connect(transport());
      const before = handlerErrors(server.logs(), "test_sampling").length;
      const result: any = await client.callTool({ name: "test_sampling", arguments: { prompt: "hi" } });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/did not declare the capability {"sampling":{}}, so sampling\/createMessage cannot be sent/);
      await client.close();
      // The operator sees the handler's failure once, with its stack and no session id.
      const logged = handlerErrors(server.logs(), "test_sampling").slice(before);
      expect(logged).toEqual([expect.objectContaining({ level: "error", method: "tools/call", message: expect.stringMatching(/did not declare the capability/), stack: expect.any(Array) })]);
      expect(holdsMintedId(logged[0]!)).toBe(false);
    });
  });
}
