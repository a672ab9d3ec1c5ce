/**
 * The example's notebook as a resource that announces its changes, through the official SDK
 * clients over real HTTP: a 2026-07-28 `subscriptions/listen` on one connection hears a note
 * added through others — a 2025 Streamable HTTP session, an HTTP+SSE session and another
 * 2026-07-28 client — and reads them back; a 2025 session subscribed with `resources/subscribe`
 * hears its own writes. On workerd the changes cross the Worker through the topic's watch object.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";

let server: Awaited<ReturnType<typeof startServer>>;
/** Deno and Node, whose sessions follow what they subscribed to; the e2e project is workerd. */
const inProcess = process.env.RUNTIME === "deno" || process.env.RUNTIME === "node";
beforeAll(async () => {
  server = await startServer({ vars: { LOG_LEVEL: "error" } });
});
afterAll(() => server?.dispose());

const textOf = (result: unknown) => ((result as { content: { text?: string }[] }).content ?? []).map((block) => block.text ?? "").join("");

function modernClient() {
  return new ModernClient({ name: "v2-client", version: "2.4.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
}

async function sessionClient(transport: "streamable" | "sse") {
  const client = new Client({ name: `v1-${transport}`, version: "1.32.2" });
  await client.connect(transport === "sse" ? new SSEClientTransport(new URL("/sse", server.url)) : new StreamableHTTPClientTransport(new URL("/mcp", server.url)));
  return client;
}

/** A new notebook with one note, opened by a 2026-07-28 call: its id. */
async function openNotebook(note: string): Promise<string> {
  const client = modernClient();
  await client.connect(new ModernTransport(new URL("/mcp", server.url)));
  try {
    const opened = textOf(await client.callTool({ name: "notebook", arguments: { action: "add", text: note } }));
    const handle = /This is notebook (\S+):/.exec(opened)?.[1];
    if (handle === undefined) throw new Error(`No notebook named in ${JSON.stringify(opened)}`);
    return handle;
  } finally {
    await client.close();
  }
}

/** Counts what a handler heard: `reached(n)` resolves once it has heard n. */
function counter() {
  let seen = 0;
  const waiting = new Map<number, () => void>();
  return {
    heard: () => {
      seen++;
      waiting.get(seen)?.();
    },
    count: () => seen,
    reached: (n: number) => (seen >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(n, resolve))),
  };
}

describe("the notebook as a resource", () => {
  it("tells a 2026-07-28 listen of a note added through another connection, in each era, and reads them all back", async () => {
    const handle = await openNotebook("first");
    const uri = `notebook://${handle}`;
    const listener = modernClient();
    const updates = counter();
    const heardUris: string[] = [];
    listener.setNotificationHandler("notifications/resources/updated", async (notification) => {
      heardUris.push(String((notification.params as { uri?: unknown }).uri));
      updates.heard();
    });
    await listener.connect(new ModernTransport(new URL("/mcp", server.url)));
    const subscription = await listener.listen({ resourceSubscriptions: [uri] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });

    const streamable = await sessionClient("streamable");
    const legacy = await sessionClient("sse");
    const modern = modernClient();
    await modern.connect(new ModernTransport(new URL("/mcp", server.url)));
    try {
      await streamable.callTool({ name: "notebook", arguments: { notebook: handle, action: "add", text: "from a 2025 session" } });
      await updates.reached(1);
      await legacy.callTool({ name: "notebook", arguments: { notebook: handle, action: "add", text: "from an HTTP+SSE session" } });
      await updates.reached(2);
      await modern.callTool({ name: "notebook", arguments: { notebook: handle, action: "add", text: "from a 2026-07-28 call" } });
      await updates.reached(3);
      expect(heardUris).toEqual([uri, uri, uri]);

      const read = await listener.readResource({ uri });
      expect(read.contents).toEqual([{ uri, mimeType: "text/plain", text: "1. first\n2. from a 2025 session\n3. from an HTTP+SSE session\n4. from a 2026-07-28 call" }]);
    } finally {
      await subscription.close();
      await Promise.all([listener.close(), streamable.close(), legacy.close(), modern.close()]);
    }
  });

  it("tells a 2025 session subscribed to a notebook of its own add, once, and in a process of an add made through another connection", async () => {
    const handle = await openNotebook("first");
    const uri = `notebook://${handle}`;
    const client = await sessionClient("streamable");
    const updates = counter();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      expect(notification.params.uri).toBe(uri);
      updates.heard();
    });
    const other = modernClient();
    await other.connect(new ModernTransport(new URL("/mcp", server.url)));
    try {
      await client.subscribeResource({ uri });
      await client.callTool({ name: "notebook", arguments: { notebook: handle, action: "add", text: "second" } });
      await updates.reached(1);
      await other.callTool({ name: "notebook", arguments: { notebook: handle, action: "add", text: "third" } });
      // In a process its subscription follows the notebook's changes wherever they are made; on
      // Workers a session object hears its own only (docs/runtimes.md says why).
      if (inProcess) await updates.reached(2);
      expect((await client.readResource({ uri })).contents).toEqual([{ uri, mimeType: "text/plain", text: "1. first\n2. second\n3. third" }]);
      // Its own add was told once, not once more through the broadcaster.
      expect(updates.count()).toBe(inProcess ? 2 : 1);
    } finally {
      await Promise.all([client.close(), other.close()]);
    }
  });
});
