/**
 * A definition that cannot be served (two tools with one name, `test/fixtures/brokenServer.ts`),
 * on every entry, as a new user meets it:
 * - `npm start` (wrangler dev) keeps running and answers every MCP request with the sentence
 *   that says what is wrong, so fixing the file is enough: no restart by hand;
 * - a process entry (Deno over HTTP, stdio) refuses to start, exiting 1 with that sentence,
 *   before it listens or reads stdin; so does one whose definitions keep state per signed-in user
 *   (`home: "user"`) when nobody signs in (`test/fixtures/userHomeServer.ts`).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startDenoServer } from "../../scripts/startDenoServer.mjs";
import { type NpmScript, npmScript } from "../support/npmScript.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SENTENCE = "The server definition is invalid: Tool echo is defined twice";

let dev: NpmScript | undefined;
afterAll(() => dev?.stop());

describe("a definition that cannot be served", () => {
  it("leaves npm start running, answering MCP requests with the sentence that says why", { timeout: 90_000 }, async () => {
    dev = await npmScript(["start"], ["test/fixtures/brokenWorker.ts"]);
    const { base, health } = dev;
    expect(health?.status, dev.output()).toBe(200);

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
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it("stops the Deno server from starting, with the sentence", { timeout: 60_000 }, async () => {
    await expect(startDenoServer({ definition: "test/fixtures/brokenServer.ts" })).rejects.toThrow(
      /Deno exited with 1 before listening:[\s\S]*The server definition is invalid: Tool echo is defined twice/,
    );
  });

  it("stops the Deno server from starting when a user's home has no sign-in, with the sentence", { timeout: 60_000 }, async () => {
    await expect(startDenoServer({ definition: "test/fixtures/userHomeServer.ts" })).rejects.toThrow(
      /Deno exited with 1 before listening:[\s\S]*home: "user"\), and this deployment has no signed-in user: configure `authorization`/,
    );
  });

  it("stops a stdio server before it reads a line, with the sentence on stderr and nothing on stdout", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ["node_modules/deno/bin.cjs", "run", "--quiet", "--allow-env", "--allow-read", "test/support/denoServer.ts", "--server", "test/fixtures/brokenServer.ts", "--stdio"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    // stdin stays open: the process must exit on its own, not because its input ended.
    const [code] = await once(child, "exit");
    child.stdin.destroy();
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(SENTENCE);
  });
});
