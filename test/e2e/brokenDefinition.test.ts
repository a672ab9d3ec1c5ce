/**
 * A definition that cannot be served (two tools with one name, `test/fixtures/brokenServer.ts`),
 * on every entry, as a new user meets it:
 * - `npm start` (wrangler dev) keeps running and answers every MCP request with the sentence
 *   that says what is wrong (`/health` 503 with it), so fixing the file is enough: no restart by hand;
 * - a process entry (Deno over HTTP, stdio) refuses to start, exiting 1 with that sentence,
 *   before it listens or reads stdin; so does one whose definitions keep state per signed-in user
 *   (`home: "user"`) when nobody signs in (`test/fixtures/userHomeServer.ts`), and one with a
 *   malformed variable. The sentence is one line on stderr: no "Uncaught", no stack (issue 21).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DENO_FLAGS } from "../../scripts/startDenoServer.mjs";
import { type NpmScript, npmScript } from "../support/npmScript.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SENTENCE = "The server definition is invalid: Tool echo is defined twice";

/**
 * Runs `test/support/denoServer.ts` on a definition (`--stdio` for the stdio entry) and waits for
 * it to exit on its own: stdin stays open, so it must not be waiting for its input to end.
 */
async function refusal(definition: string, args: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["node_modules/deno/bin.cjs", ...DENO_FLAGS, "test/support/denoServer.ts", "--server", definition, "--port", "0", ...args], {
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
afterAll(() => dev?.stop());

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
