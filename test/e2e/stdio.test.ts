/**
 * The example server over stdio under Deno (`example/stdio.ts`), as a desktop client runs it: driven
 * by the official SDK's `StdioClientTransport`, and by a raw child process through its
 * npm script (`npm run --silent stdio`) for what an SDK client never sends: garbage lines, a stdin
 * closed while a handler runs. stdout must carry MCP messages only; logs go to stderr.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The `stdio` script of package.json, spelled out for a transport that spawns without a shell. */
const DENO_ARGS = ["node_modules/deno/bin.cjs", "run", "--quiet", "--allow-env", "--allow-net", "example/stdio.ts"];
// A client that renders no views is not shown the board's app-only tool, pickAlertStates.
const TOOLS = ["toUpperCase", "getAlerts", "getWeatherForecastByLocation", "getScore", "notepad", "alertSweep", "notebook", "alertBoard"];

let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;
/** A weather API that accepts connections and never answers: keeps a handler running. */
let silent: Server;
const sockets: Socket[] = [];
let silentUrl: string;

beforeAll(async () => {
  nws = await startNwsFixtureServer();
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
});
afterAll(async () => {
  await nws?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

const text = (result: any) => result.content.map((c: any) => c.text).join("");

describe("official SDK client over stdio (StdioClientTransport)", () => {
  it("initializes, lists and calls tools, keeps per-session notes, logs to stderr only, and exits on stdin close", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: DENO_ARGS,
      cwd: ROOT,
      env: { NWS_BASE_URL: nws.url, LOG_LEVEL: "info" },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr!.on("data", (chunk) => (stderr += chunk));
    const client = new Client({ name: "stdio-e2e", version: "1.0.0" });
    // A line on stdout that is not a JSON-RPC message would surface here.
    const errors: Error[] = [];
    client.onerror = (error) => void errors.push(error);
    await client.connect(transport);

    expect(client.getServerVersion()).toEqual({ name: "my-weather-server", version: "0.0.1" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    expect(await client.callTool({ name: "toUpperCase", arguments: { input: "over stdio" } })).toEqual({
      content: [{ type: "text", text: "OVER STDIO" }],
      isError: false,
    });
    expect(text(await client.callTool({ name: "getScore", arguments: { name: "lisi" } }))).toBe('"80.0"');
    // The environment reaches handlers, and --allow-net lets them fetch.
    const alerts = await client.callTool({ name: "getAlerts", arguments: { state: "CA" } });
    expect(alerts.isError).toBe(false);
    expect(nws.requests.some((r) => r.startsWith("GET /alerts/active?area=CA"))).toBe(true);

    expect(text(await client.callTool({ name: "notepad", arguments: { action: "add", text: "first" } }))).toBe("Noted. The pad has 1 note(s).");
    expect(text(await client.callTool({ name: "notepad", arguments: { action: "add", text: "second" } }))).toBe("Noted. The pad has 2 note(s).");
    expect(text(await client.callTool({ name: "notepad", arguments: { action: "list" } }))).toBe("1. first\n2. second");
    await client.ping();

    // close() ends stdin, then waits 2 s before SIGTERM: a prompt close means the server exited by itself.
    const closing = Date.now();
    await client.close();
    expect(Date.now() - closing).toBeLessThan(1_900);
    expect(errors).toEqual([]);

    const logs = stderr.trim().split("\n").map((line) => JSON.parse(line));
    const events = logs.map((l) => l.event);
    expect(events).toContain("session.open");
    expect(logs.find((l) => l.event === "session.initialized")).toMatchObject({ client: "stdio-e2e" });
    expect(logs.find((l) => l.event === "session.end")).toMatchObject({ reason: "input-closed" });
  });
});

describe("the v2 SDK client over stdio, protocol 2026-07-28", () => {
  it("probes server/discover, lands on 2026-07-28 with no initialize, and calls tools", async () => {
    const transport = new ModernStdioTransport({ command: process.execPath, args: DENO_ARGS, cwd: ROOT, env: { LOG_LEVEL: "info" }, stderr: "pipe" });
    let stderr = "";
    transport.stderr!.on("data", (chunk) => (stderr += chunk));
    // "auto" falls back to initialize when the probe fails: landing on modern proves stdio serves it.
    const client = new ModernClient({ name: "v2-stdio", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getServerVersion()).toMatchObject({ name: "my-weather-server" });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
    const results = await Promise.all(["a", "b", "c"].map((input) => client.callTool({ name: "toUpperCase", arguments: { input } })));
    expect(results.map(text)).toEqual(["A", "B", "C"]);
    // No session on this revision, so the note pad says so instead of losing notes.
    const note: any = await client.callTool({ name: "notepad", arguments: { action: "add", text: "x" } });
    expect(note.isError).toBe(true);
    // The notebook keeps notes under a handle instead: in this process's memory, for this connection.
    const notebook = /notebook ([0-9a-f]{32})/.exec(text(await client.callTool({ name: "notebook", arguments: { action: "add", text: "kept" } })))![1];
    expect(text(await client.callTool({ name: "notebook", arguments: { notebook, action: "list" } }))).toBe("1. kept");
    await client.close();
    const events = stderr.trim().split("\n").map((line) => JSON.parse(line).event);
    expect(events).not.toContain("session.initialized");
  });
});

/** The server under its npm script, read and written one line at a time. */
function startRaw(env: Record<string, string>) {
  const child = spawn("npm", ["run", "--silent", "stdio"], { cwd: ROOT, env: { ...process.env, ...env }, stdio: "pipe" }) as ChildProcessWithoutNullStreams;
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  let consumed = 0;
  return {
    child,
    exited,
    stderr: () => stderr,
    /** Every byte written to stdout so far. */
    stdout: () => stdout,
    write: (line: string) => child.stdin.write(line),
    async next(): Promise<any> {
      for (;;) {
        const end = stdout.indexOf("\n", consumed);
        if (end >= 0) {
          const line = stdout.slice(consumed, end);
          consumed = end + 1;
          return JSON.parse(line);
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

describe("npm run --silent stdio, raw", () => {
  it("answers garbage with an error line and goes on; stdout holds only JSON-RPC lines; exits 0 on stdin close", async () => {
    const server = startRaw({ LOG_LEVEL: "info" });
    server.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) + "\n");
    expect((await server.next()).result.protocolVersion).toBe("2025-06-18");

    server.write("this is not JSON\n");
    expect(await server.next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    server.write('{"jsonrpc":"2.0","id":"bad","method":42}\n');
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: "bad", error: { code: -32600, message: 'Invalid Request: "method" must be a non-empty string' } });

    server.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"toUpperCase","arguments":{"input":"still here"}}}\r\n');
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "STILL HERE" }], isError: false } });
    // 2026-07-28 is not served over stdio: its discovery method is unknown on a session.
    server.write('{"jsonrpc":"2.0","id":3,"method":"server/discover"}\n');
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found: server/discover" } });

    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    for (const line of server.stdout().split("\n").filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    expect(server.stdout().endsWith("\n")).toBe(true);
    // Operator logs went to stderr, as JSON lines among whatever npm itself warns about.
    const logs = server.stderr().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    expect(logs.filter((l) => l.event === "rpc.malformed").map((l) => l.code)).toEqual([-32700, -32600]);
    expect(logs.at(-1)).toMatchObject({ event: "session.end", reason: "input-closed" });
  });

  it("exits 0 promptly when stdin closes while a handler is still running", async () => {
    const server = startRaw({ LOG_LEVEL: "info", NWS_BASE_URL: silentUrl });
    server.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"getAlerts","arguments":{"state":"CA"}}}\n');
    server.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(await server.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    await expect.poll(() => sockets.length).toBeGreaterThan(0);

    const closing = Date.now();
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - closing).toBeLessThan(3_000);
    // The running call was aborted, not answered: nobody is left to read a reply.
    expect(server.stdout().trim().split("\n")).toHaveLength(1);
    expect(server.stderr()).toContain('"aborted":"client disconnected"');
  });
});
