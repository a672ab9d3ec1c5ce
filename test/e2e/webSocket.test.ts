/**
 * The transport interface from the outside: MCP over WebSocket, added by `example/` files only
 * (`webSocketMessages.ts` + one entry per runtime), served by `serveMessages`. Driven by the
 * official SDK's `WebSocketClientTransport` and by raw sockets, against workerd and Deno.
 * (Node 20 has `WebSocket` behind `--experimental-websocket`, which vitest.config.ts passes.)
 */
import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { ErrorCode } from "durable-mcp/protocol";

let server: Awaited<ReturnType<typeof startServer>>;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startServer({ entry: "example/webSocketWorker.ts", vars: { LOG_LEVEL: "error" } });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.dispose();
});

const wsUrl = () => new URL("/ws", server.url.replace(/^http/, "ws"));

async function connect(): Promise<Client> {
  const client = new Client({ name: "ws-e2e", version: "1" });
  await client.connect(new WebSocketClientTransport(wsUrl()));
  clients.push(client);
  return client;
}

const text = (result: unknown) => ((result as { content: { text: string }[] }).content[0]!.text);

/** A raw socket that collects the messages it receives. */
async function rawSocket() {
  const socket = new WebSocket(wsUrl().href, "mcp");
  const received: any[] = [];
  const waiters: (() => void)[] = [];
  socket.addEventListener("message", (event: MessageEvent) => {
    received.push(JSON.parse(String(event.data)));
    waiters.splice(0).forEach((wake) => wake());
  });
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  return {
    socket,
    async next(): Promise<any> {
      while (received.length === 0) await new Promise<void>((wake) => waiters.push(wake));
      return received.shift();
    },
  };
}

describe("MCP over WebSocket, a transport added outside the core", () => {
  it("serves the SDK's WebSocketClientTransport: initialize, tools/list, tools/call", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toEqual({ name: "my-weather-server", version: "0.0.1" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("notepad");
    expect(text(await client.callTool({ name: "toUpperCase", arguments: { input: "over a socket" } }))).toBe("OVER A SOCKET");
  });

  it("makes each socket its own session (the note pad is per connection)", async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    expect(text(await a.callTool({ name: "notepad", arguments: { action: "add", text: "alpha" } }))).toBe("Noted. The pad has 1 note(s).");
    expect(text(await b.callTool({ name: "notepad", arguments: { action: "list" } }))).toBe("The note pad is empty.");
    expect(text(await a.callTool({ name: "notepad", arguments: { action: "list" } }))).toBe("1. alpha");
  });

  it("keeps a notebook (a handle's home) for the socket; on Workers in the home objects, so the next socket finds it too", async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const opened = text(await a.callTool({ name: "notebook", arguments: { action: "add", text: "milk" } }));
    const notebook = /This is notebook ([0-9a-f]{32})/.exec(opened)?.[1];
    expect(notebook, opened).toBeDefined();
    expect(text(await a.callTool({ name: "notebook", arguments: { notebook, action: "list" } }))).toBe("1. milk");
    const elsewhere = text(await b.callTool({ name: "notebook", arguments: { notebook, action: "list" } }));
    // Deno serves each socket with homes of its own, in memory, as long as the connection.
    if (process.env.RUNTIME === "deno") expect(elsewhere).toMatch(/^Unknown handle/);
    else expect(elsewhere).toBe("1. milk");
  });

  it("answers 15 concurrent calls on one socket, each once", async () => {
    const client = await connect();
    const words = Array.from({ length: 15 }, (_, i) => `word${i}`);
    const results = await Promise.all(words.map((w) => client.callTool({ name: "toUpperCase", arguments: { input: w } })));
    expect(results.map(text)).toEqual(words.map((w) => w.toUpperCase()));
  });

  it("agrees on the mcp subprotocol, answers bad frames with errors, and goes on", async () => {
    const { socket, next } = await rawSocket();
    expect(socket.protocol).toBe("mcp");
    socket.send("not json");
    expect(await next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError } });
    socket.send(new Uint8Array([123, 125]));
    expect(await next()).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest, message: expect.stringMatching(/text frame/) } });
    socket.send(JSON.stringify({ jsonrpc: "1.0", id: 4, method: "ping" }));
    expect(await next()).toMatchObject({ id: 4, error: { code: ErrorCode.InvalidRequest } });
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" }));
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
    socket.close();
  });

  it("refuses a plain GET with 426 and an upgrade from a foreign Origin with 403, before any socket opens", async () => {
    const plain = await fetch(`${server.url}/ws`);
    expect(plain.status).toBe(426);
    expect(((await plain.json()) as { error: { code: number } }).error.code).toBe(ErrorCode.InvalidRequest);

    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/ws`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
          origin: "https://attacker.example",
        },
      });
      req.on("response", (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      req.on("upgrade", () => reject(new Error("the upgrade was accepted")));
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
