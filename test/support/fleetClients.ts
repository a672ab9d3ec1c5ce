/**
 * Test helper: the official SDK clients as the fleet tests drive a server through a balancer or
 * straight at one process — a v1 client in a 2025 session (Streamable HTTP or HTTP+SSE), a v2
 * client on 2026-07-28, a v2 listen and a v1 subscription on a notebook's resource — each closed
 * by `closeAll()`.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const opened: { close(): Promise<void> }[] = [];

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** A v1 client in a 2025 session over `transport`: `call` answers a tool's text. */
export async function sessionClient(transport: StreamableHTTPClientTransport | SSEClientTransport) {
  const client = new Client({ name: "v1-client", version: "1" });
  await client.connect(transport);
  opened.push(client);
  return { client, call: async (name: string, args: Record<string, unknown>) => text(await client.callTool({ name, arguments: args })) };
}

export const streamableAt = (url: string) => new StreamableHTTPClientTransport(new URL("/mcp", url));
export const sseAt = (url: string) => new SSEClientTransport(new URL("/sse", url));

/** A v2 client on 2026-07-28 at `url`: a tool's text per call. */
export async function modernClient(url: string) {
  const client = new ModernClient({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernTransport(new URL("/mcp", url)));
  opened.push(client);
  return async (name: string, args: Record<string, unknown>) => text(await client.callTool({ name, arguments: args }));
}

/** A new notebook's id, from the answer that opened it. */
export function notebookIn(answer: string): string {
  const id = /notebook ([0-9a-f]{32})/.exec(answer)?.[1];
  if (id === undefined) throw new Error(`No notebook named in ${JSON.stringify(answer)}`);
  return id;
}

/** A v2 `subscriptions/listen` at `url` on the notebook's resource: `heard(n)` resolves once n updates came. */
export async function listenToNotebook(url: string, notebook: string) {
  const client = new ModernClient({ name: "v2-listener", version: "2.4.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  let seen = 0;
  const waiting = new Map<number, () => void>();
  client.setNotificationHandler("notifications/resources/updated", async () => {
    seen++;
    waiting.get(seen)?.();
  });
  await client.connect(new ModernTransport(new URL("/mcp", url)));
  opened.push(client);
  const uri = `notebook://${notebook}`;
  const subscription = await client.listen({ resourceSubscriptions: [uri] });
  return {
    honored: subscription.honoredFilter,
    heard: (n: number) => (seen >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(n, resolve))),
    read: async () => ((await client.readResource({ uri })).contents[0] as { text: string }).text,
  };
}

/** A v1 client in a 2025 Streamable HTTP session at `url`, subscribed to the notebook's resource: `heard(n)` as above. */
export async function subscribeToNotebook(url: string, notebook: string) {
  const client = new Client({ name: "v1-subscriber", version: "1" });
  let seen = 0;
  const waiting = new Map<number, () => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async () => {
    seen++;
    waiting.get(seen)?.();
  });
  await client.connect(streamableAt(url));
  opened.push(client);
  await client.subscribeResource({ uri: `notebook://${notebook}` });
  return { heard: (n: number) => (seen >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(n, resolve))) };
}

/**
 * What every fleet test does first, through a balancer in front of two processes: a Streamable
 * HTTP session and an HTTP+SSE session each keep their own notes, whichever process each request
 * lands on, and two 2026-07-28 clients share a notebook; the balancer sent requests to both.
 * @returns the Streamable HTTP client's transport, for what a test does with its session next
 */
export async function servesEveryEra(balancer: { url: string; routed: number[] }): Promise<StreamableHTTPClientTransport> {
  const streamable = streamableAt(balancer.url);
  const viaMcp = await sessionClient(streamable);
  for (const note of ["one", "two", "three"]) await viaMcp.call("notepad", { action: "add", text: note });
  expectText(await viaMcp.call("notepad", { action: "list" }), "1. one\n2. two\n3. three");

  const legacy = await sessionClient(sseAt(balancer.url));
  for (const note of ["a", "b", "c"]) await legacy.call("notepad", { action: "add", text: note });
  expectText(await legacy.call("notepad", { action: "list" }), "1. a\n2. b\n3. c");
  // Sessions apart: each kept its own notes.
  expectText(await viaMcp.call("notepad", { action: "list" }), "1. one\n2. two\n3. three");

  const writer = await modernClient(balancer.url);
  const notebook = notebookIn(await writer("notebook", { action: "add", text: "first" }));
  await writer("notebook", { notebook, action: "add", text: "second" });
  const reader = await modernClient(balancer.url);
  expectText(await reader("notebook", { notebook, action: "list" }), "1. first\n2. second");

  // Both processes answered, turn by turn.
  const routedTo = new Set(balancer.routed);
  if (!routedTo.has(0) || !routedTo.has(1)) throw new Error(`The balancer sent every request to one process: ${[...routedTo].join(", ")}`);
  return streamable;
}

/**
 * The second thing every fleet test does: a listen and a 2025 subscription on the process at
 * `listening` hear two writes to a notebook made through the process at `writing`, one from a
 * 2025 session and one from a 2026-07-28 call, and the listener reads all three notes back.
 */
export async function hearsAcrossProcesses(listening: string, writing: string): Promise<void> {
  const notebook = notebookIn(await (await modernClient(writing))("notebook", { action: "add", text: "first" }));
  const listener = await listenToNotebook(listening, notebook);
  const subscriber = await subscribeToNotebook(listening, notebook);
  const uri = `notebook://${notebook}`;
  if (JSON.stringify(listener.honored) !== JSON.stringify({ resourceSubscriptions: [uri] })) throw new Error(`The listen honored ${JSON.stringify(listener.honored)}`);

  const session = await sessionClient(streamableAt(writing));
  await session.call("notebook", { notebook, action: "add", text: "from a 2025 session" });
  await Promise.all([listener.heard(1), subscriber.heard(1)]);
  await (await modernClient(writing))("notebook", { notebook, action: "add", text: "from a 2026-07-28 call" });
  await Promise.all([listener.heard(2), subscriber.heard(2)]);
  expectText(await listener.read(), "1. first\n2. from a 2025 session\n3. from a 2026-07-28 call");
}

function expectText(actual: string, expected: string): void {
  if (actual !== expected) throw new Error(`Expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

export async function closeAll(): Promise<void> {
  await Promise.all(opened.splice(0).map((client) => client.close().catch(() => {})));
}
