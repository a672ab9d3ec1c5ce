/**
 * The example's own tools, tested as a user of this package tests theirs: through
 * `durable-mcp/testing`, an MCP client in memory (README, "Test it"). The weather
 * tools call the National Weather Service and are tested end to end against a stand-in instead
 * (`test/e2e`); these need nothing but the definition.
 */
import { describe, expect, it } from "vitest";
import { testClient } from "durable-mcp/testing";
import server from "./server.ts";

const text = (result: { content: { type: string; text?: string }[] }) => result.content.map((block) => block.text).join("");

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
});
