/**
 * Per-session tool lists with the official SDK client on both transports: a tool call switches a
 * hidden tool on, the client hears `notifications/tools/list_changed`, and its next listing has it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ entry: "test/runtime/testWorker.ts", vars: { LOG_LEVEL: "error" } });
});
afterAll(() => server?.dispose());

const transports = {
  "Streamable HTTP": () => new StreamableHTTPClientTransport(new URL("/mcp", server.url)),
  "HTTP+SSE": () => new SSEClientTransport(new URL("/sse", server.url)),
};

for (const [name, transport] of Object.entries(transports)) {
  describe(`list changes over ${name}`, () => {
    it("tells the client its tool list changed, for its own session only", async () => {
      const client = new Client({ name: "lister", version: "1.0.0" });
      const bystander = new Client({ name: "bystander", version: "1.0.0" });
      let changed = 0;
      let heard: () => void;
      const notified = new Promise<void>((resolve) => (heard = resolve));
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        changed++;
        heard();
      });
      let bystanderChanged = 0;
      bystander.setNotificationHandler(ToolListChangedNotificationSchema, async () => void bystanderChanged++);
      await client.connect(transport());
      await bystander.connect(transport());
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });

      const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
      expect(await names(client)).not.toContain("vault");
      const unlocked: any = await client.callTool({ name: "unlock", arguments: {} });
      expect(unlocked.content[0].text).toBe("unlocked");
      await notified;
      expect(await names(client)).toContain("vault");
      expect(((await client.callTool({ name: "vault", arguments: {} })) as any).content[0].text).toBe("opened");

      await client.callTool({ name: "unlock", arguments: { on: false } });
      expect(changed).toBe(2);
      expect(await names(client)).not.toContain("vault");
      expect(await names(bystander)).not.toContain("vault");
      expect(bystanderChanged).toBe(0);
      await client.close();
      await bystander.close();
    });
  });
}
