/**
 * The example's own tools, tested as a user of this package tests theirs: through
 * `durable-mcp/testing`, an MCP client in memory (README, "Test it"). The weather
 * tools call the National Weather Service and are tested end to end against a stand-in instead
 * (`test/e2e`); these need nothing but the definition.
 */
import { describe, expect, it, vi } from "vitest";
import { testClient, TestClientError } from "durable-mcp/testing";
import { notebookUri } from "./notes.ts";
import server from "./server.ts";

const text = (result: { content: { type: string; text?: string }[] }) => result.content.map((block) => block.text).join("");
const UPDATED = "notifications/resources/updated";
/** The `_meta` key that ties a listen's notifications to it (2026-07-28 "Subscriptions"). */
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** The handle a first "add" opened, as its answer names it. */
function handleOf(opened: string): string {
  const handle = /This is notebook (\S+):/.exec(opened)?.[1];
  if (handle === undefined) throw new Error(`No notebook named in ${JSON.stringify(opened)}`);
  return handle;
}

describe("the example's tools, through the in-memory client", () => {
  it("upper-cases a text, scores a known name (as JSON text), and says who is known otherwise (2026-07-28)", async () => {
    const client = await testClient(server);
    try {
      expect(text(await client.callTool("toUpperCase", { input: "hello" }))).toBe("HELLO");
      expect(text(await client.callTool("getScore", { name: "lisi" }))).toBe('"80.0"');
      const unknown = await client.callTool("getScore", { name: "nobody" });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toMatch(/Known names: .*lisi/);
    } finally {
      await client.close();
    }
  });

  it("says what a wrong argument should have been (zod/mini's English messages), so the model can fix its call", async () => {
    const client = await testClient(server);
    try {
      const refused = await client.callTool("notebook", { action: "rename" });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain('expected one of "add"|"list"|"clear"');
    } finally {
      await client.close();
    }
  });

  it("keeps the note pad in a session, and points a 2026-07-28 client to the notebook", async () => {
    const session = await testClient(server, { protocolVersion: "2025-11-25" });
    try {
      await session.callTool("notepad", { action: "add", text: "buy milk" });
      expect(text(await session.callTool("notepad", { action: "list" }))).toContain("buy milk");
    } finally {
      await session.close();
    }
    const modern = await testClient(server);
    try {
      const refused = await modern.callTool("notepad", { action: "list" });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/notebook/);
    } finally {
      await modern.close();
    }
  });

  it("opens a notebook under a handle, and finds its notes again by that handle (2026-07-28)", async () => {
    const client = await testClient(server);
    try {
      const opened = text(await client.callTool("notebook", { action: "add", text: "first" }));
      const handle = /This is notebook (\S+):/.exec(opened)?.[1];
      expect(handle).toBeDefined();
      expect(text(await client.callTool("notebook", { notebook: handle, action: "list" }))).toContain("first");
    } finally {
      await client.close();
    }
  });

  it("reads a notebook as the resource its id names, after an add, and refuses an id never opened (2026-07-28)", async () => {
    const client = await testClient(server);
    try {
      expect(await client.listResourceTemplates()).toContainEqual(expect.objectContaining({ uriTemplate: "notebook://{notebook}", name: "notebook", mimeType: "text/plain" }));
      const handle = handleOf(text(await client.callTool("notebook", { action: "add", text: "first" })));
      await client.callTool("notebook", { notebook: handle, action: "add", text: "second" });
      const read = await client.readResource(notebookUri(handle));
      expect(read.contents).toEqual([{ uri: notebookUri(handle), mimeType: "text/plain", text: "1. first\n2. second" }]);

      const unknown = await client.readResource(notebookUri("0".repeat(32))).catch((error: unknown) => error);
      expect(unknown).toBeInstanceOf(TestClientError);
      expect(unknown).toMatchObject({ code: -32602, message: expect.stringMatching(/^Unknown handle/) });
    } finally {
      await client.close();
    }
  });

  it("tells a 2025 session subscribed to a notebook of each add and clear, and of nothing on a list", async () => {
    const client = await testClient(server, { protocolVersion: "2025-11-25" });
    try {
      const handle = handleOf(text(await client.callTool("notebook", { action: "add", text: "first" })));
      const uri = notebookUri(handle);
      await client.request("resources/subscribe", { uri });
      const updates = () => client.notifications.filter((n) => n.method === UPDATED);
      await client.callTool("notebook", { notebook: handle, action: "add", text: "second" });
      expect(updates()).toEqual([{ jsonrpc: "2.0", method: UPDATED, params: { uri } }]);
      await client.callTool("notebook", { notebook: handle, action: "list" });
      expect(updates()).toHaveLength(1);
      await client.callTool("notebook", { notebook: handle, action: "clear" });
      expect(updates()).toHaveLength(2);
      expect((await client.readResource(uri)).contents).toEqual([{ uri, mimeType: "text/plain", text: "The note pad is empty." }]);
    } finally {
      await client.close();
    }
  });

  it("tells a 2026-07-28 listen on a notebook of an add, tagged with the listen's id", async () => {
    const client = await testClient(server);
    try {
      const handle = handleOf(text(await client.callTool("notebook", { action: "add", text: "first" })));
      const uri = notebookUri(handle);
      // A listen is answered only when it ends (here, when the client closes): not awaited.
      const listening = client.request("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }).catch((error: unknown) => error);
      await vi.waitFor(() => expect(client.notifications.map((n) => n.method)).toContain("notifications/subscriptions/acknowledged"));
      await client.callTool("notebook", { notebook: handle, action: "add", text: "second" });
      await vi.waitFor(() => expect(client.notifications.filter((n) => n.method === UPDATED).map((n) => n.params?.uri)).toEqual([uri]));
      const tagOf = (method: string) => (client.notifications.find((n) => n.method === method)?.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID];
      expect(tagOf(UPDATED)).toBeDefined();
      expect(tagOf(UPDATED)).toBe(tagOf("notifications/subscriptions/acknowledged"));
      await client.close();
      await listening;
    } finally {
      await client.close();
    }
  });
});
