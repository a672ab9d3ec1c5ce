/**
 * A definition that cannot be served (two tools with one name, `test/fixtures/brokenServer.ts`),
 * on every entry, as a new user meets it:
 * - `npm start` (wrangler dev) keeps running and answers every MCP request with the sentence
 *   that says what is wrong (`/health` 503 with it), so fixing the file is enough: no restart by hand;
 * - a process entry (Deno over HTTP, stdio) refuses to start, exiting 1 with that sentence,
 *   before it binds its port or reads stdin; so does one whose definitions keep state per signed-in user
 *   (`home: "user"`) when nobody signs in (`test/fixtures/userHomeServer.ts`), and one with a
 *   malformed variable. The sentence is one line on stderr: no "Uncaught", no stack;
 * - so does a process that cannot start serving a good definition: Deno whose port is taken, or
 *   asked for a KV file without `--unstable-kv`; Node whose port is taken, or asked to bind
 *   an address that is not this machine's (`start.failed`).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DENO_FLAGS } from "../../scripts/startDenoServer.mjs";
import { bundleNodeEntry } from "../../scripts/startNodeServer.mjs";
import { type Server, createServer } from "node:net";
import { type NpmScript, npmScript } from "../support/npmScript.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SENTENCE = "The server definition is invalid: Tool echo is defined twice";

/**
 * Runs `test/support/denoServer.ts` on a definition (`--stdio` for the stdio entry; a `--port` in
 * `args` comes first, so it wins over the default 0) and waits for
 * it to exit on its own: stdin stays open, so it must not be waiting for its input to end.
 */
async function refusal(definition: string, args: string[] = [], env: Record<string, string> = {}, flags = DENO_FLAGS) {
  return exited(["node_modules/deno/bin.cjs", ...flags, "test/support/denoServer.ts", "--server", definition, ...args, "--port", "0"], env);
}

/** Runs Node with `args` and waits for it to exit on its own, stdin left open. */
async function exited(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [code] = await once(child, "exit");
  child.stdin.destroy();
  return { code, stdout, stderr };
}

/** One JSON line on stderr, the event's sentence whole, and neither Deno's "Uncaught" report nor a stack frame. */
function expectOneLine(stderr: string, event: string, sentence: string | RegExp): void {
  const lines = stderr.split("\n").filter(Boolean);
  expect(lines, stderr).toHaveLength(1);
  const line = JSON.parse(lines[0]!);
  expect(line).toEqual({ level: "error", event, message: expect.stringMatching(sentence) });
  expect(stderr).not.toMatch(/Uncaught|^\s+at /m);
}

let dev: NpmScript | undefined;
let taken: Server | undefined;
afterAll(() => {
  dev?.stop();
  taken?.close();
});

/** A port on 127.0.0.1 that this test process has bound, so a server asked for it cannot have it. */
async function takenPort(): Promise<number> {
  taken ??= await new Promise<Server>((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
  return (taken.address() as { port: number }).port;
}

describe("a definition that cannot be served", () => {
  it("leaves npm start running, answering MCP requests with the sentence that says why and /health 503 with it", { timeout: 90_000 }, async () => {
    dev = await npmScript(["start"], ["test/fixtures/brokenWorker.ts"]);
    const { base, health } = dev;
    expect(health?.status, dev.output()).toBe(503);
    expect(await health!.json()).toEqual({ status: "unavailable", problem: SENTENCE });

    const posted = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
    });
    expect(posted.status).toBe(500);
    expect(((await posted.json()) as { error: unknown }).error).toEqual({ code: -32603, message: SENTENCE });
    expect(((await (await fetch(`${base}/`)).json()) as { problem: string }).problem).toBe(SENTENCE);
    // Still up after answering: the dev server did not exit.
    expect(dev.child.exitCode).toBeNull();
    expect((await fetch(`${base}/health`)).status).toBe(503);
  });

  it("stops the Deno server from starting, with the sentence on one line", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await refusal("test/fixtures/brokenServer.ts");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expectOneLine(stderr, "definition.invalid", SENTENCE);
  });

  it("stops the Deno server from starting when a user's home has no sign-in, with the sentence on one line", { timeout: 60_000 }, async () => {
    const { code, stderr } = await refusal("test/fixtures/userHomeServer.ts");
    expect(code).toBe(1);
    expectOneLine(stderr, "config.homes", /home: "user"\), and this deployment has no signed-in user: configure `authorization`/);
  });

  it("stops the Deno server from starting with a malformed variable, naming it on one line", { timeout: 60_000 }, async () => {
    const { code, stderr } = await refusal("test/runtime/testServer.ts", [], { MAX_QUEUE_BYTES: "4MiB" });
    expect(code).toBe(1);
    expectOneLine(stderr, "config.invalid", /^The configuration is invalid: MAX_QUEUE_BYTES must be a positive integer, got "4MiB"$/);
  });

  it("stops a stdio server before it reads a line, with the sentence on one line of stderr and nothing on stdout", { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await refusal("test/fixtures/brokenServer.ts", ["--stdio"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expectOneLine(stderr, "definition.invalid", SENTENCE);
  });
});

describe("a server that cannot start serving", () => {
  it("stops Deno whose port is taken, with one line that names the port", { timeout: 60_000 }, async () => {
    const port = await takenPort();
    const { code, stdout, stderr } = await refusal("test/runtime/testServer.ts", ["--port", String(port)]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expectOneLine(stderr, "start.failed", new RegExp(`^Cannot bind 127\\.0\\.0\\.1:${port}: the port is in use`));
  });

  it("stops Deno asked for a KV file without --unstable-kv, with one line that says to add it", { timeout: 60_000 }, async () => {
    const flags = DENO_FLAGS.filter((flag) => flag !== "--unstable-kv");
    const { code, stdout, stderr } = await refusal("test/runtime/testServer.ts", ["--kv", join(tmpdir(), `durable-mcp-no-kv-${process.pid}.sqlite`)], {}, flags);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expectOneLine(stderr, "start.failed", /--unstable-kv/);
  });

  it("stops Node whose port is taken, or asked for an address that is not this machine's, with one line each", { timeout: 60_000 }, async () => {
    const bundled = await bundleNodeEntry({ definition: "test/runtime/testServer.ts" });
    try {
      const port = await takenPort();
      const inUse = await exited([bundled.outfile, "--port", String(port)]);
      expect(inUse.code).toBe(1);
      expect(inUse.stdout).toBe("");
      expectOneLine(inUse.stderr, "start.failed", new RegExp(`^Cannot bind 127\\.0\\.0\\.1:${port}: the port is in use`));
      // 192.0.2.0/24 is for documentation (RFC 5737): no machine has it.
      const elsewhere = await exited([bundled.outfile, "--port", "0", "--hostname", "192.0.2.1"], { ALLOWED_HOSTS: "192.0.2.1" });
      expect(elsewhere.code).toBe(1);
      expectOneLine(elsewhere.stderr, "start.failed", /^Cannot bind 192\.0\.2\.1:0: /);
    } finally {
      bundled.remove();
    }
  });
});
