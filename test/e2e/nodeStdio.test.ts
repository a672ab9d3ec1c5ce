/**
 * `serveStdio` on Node, in a child process of its own (`test/fixtures/nodeStdioServer.ts`,
 * bundled by esbuild): a tool that writes with `console.log`, `console.info` and
 * `console.debug` must not corrupt stdout, which carries MCP messages only (transports spec,
 * "stdio"); what it writes goes to stderr, as under Deno.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromSource } from "../../scripts/bundleWorker.mjs";

const FIXTURE = fileURLToPath(new URL("../fixtures/nodeStdioServer.ts", import.meta.url));

let dir: string;
let bundle: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-node-stdio-"));
  bundle = join(dir, "server.mjs");
  await build({
    entryPoints: [FIXTURE],
    outfile: bundle,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // `durable-mcp` and its subpaths from source, as the Worker bundles of the tests resolve them.
    plugins: [fromSource],
    logLevel: "error",
  });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Sends lines to the child and waits for the answer with `id`, reading stdout line by line. */
function speak(child: ChildProcessWithoutNullStreams) {
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return {
    send: (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`),
    async answer(id: number): Promise<any> {
      for (;;) {
        const found = stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .find((message) => message.id === id);
        if (found) return found;
        await once(child.stdout, "data");
      }
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

describe("serveStdio on Node", () => {
  it("keeps a tool's console.log, console.info and console.debug off stdout: stdout holds JSON-RPC lines only, the text goes to stderr", async () => {
    const child = spawn(process.execPath, [bundle], { stdio: "pipe", env: { ...process.env, LOG_LEVEL: "error" } }) as ChildProcessWithoutNullStreams;
    children.push(child);
    const io = speak(child);
    io.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    expect((await io.answer(1)).result.serverInfo.name).toBe("chatty-node");
    io.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    io.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "chatter", arguments: {} } });
    expect((await io.answer(2)).result.content).toEqual([{ type: "text", text: "done" }]);

    child.stdin.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    for (const line of io.stdout().split("\n").filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    expect(io.stderr()).toContain("console.log from a tool");
    expect(io.stderr()).toContain("console.info from a tool");
    expect(io.stderr()).toContain("console.debug from a tool");
  });
});
