/**
 * Hostile input with authorization on, against a server in a process of its own so that
 * everything it prints can be read (`startServerProcess`), logging at `debug`: malformed and
 * forged credentials and malformed bodies with good ones, on every endpoint. No answer is a 5xx,
 * none repeats a token, and no line the server prints holds a token, valid or not. Workerd
 * (miniflare) in the e2e project, Deno in the contract suite.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO_FLAGS } from "../../scripts/startDenoServer.mjs";
import { startServerProcess, type ServerProcess } from "../support/startServerProcess.ts";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const ISSUER = "https://issuer.example";
const deno = join(dirname(createRequire(import.meta.url).resolve("deno/package.json")), process.platform === "win32" ? "deno.exe" : "deno");

let server: ServerProcess;
let valid: string;
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
  const vars = { LOG_LEVEL: "debug", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, NO_COLOR: "1" };
  const readyPath = "/.well-known/oauth-protected-resource";
  server =
    process.env.RUNTIME === "deno"
      ? await startServerProcess({ command: [deno, ...DENO_FLAGS, "test/fixtures/auth/authDeno.ts", "--port", "0"], env: { ...vars, DENO_NO_UPDATE_CHECK: "1" }, readyPath })
      : await startServerProcess({ command: [process.execPath, "test/support/serveEntry.mjs", "miniflare", "test/fixtures/auth/authWorker.ts", ...Object.entries(vars).map(([k, v]) => `${k}=${v}`)], readyPath });
  valid = await issuer.sign({ sub: "alice", aud: `${server.url}/mcp` });
});
afterAll(() => server?.stop());

/** A JWT that says it needs no signature (`alg: none`). */
function unsigned(audience: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ iss: ISSUER, sub: "mallory", aud: audience, scope: "mcp", exp: Math.floor(Date.now() / 1000) + 300 })}.`;
}

describe("hostile input with authorization on", () => {
  it("answers every malformed credential and body without a 5xx, and repeats no token, on every endpoint", async () => {
    const audience = `${server.url}/mcp`;
    const huge = await issuer.sign({ sub: "alice", aud: audience, padding: "x".repeat(6_000) });
    const credentials = [
      "Bearer",
      "Bearer ",
      "Basic YWxpY2U6c2VjcmV0",
      `Bearer ${"A".repeat(8_193)}`,
      "Bearer a b",
      "Bearer ünïcödé",
      `Bearer ${unsigned(audience)}`,
      `Bearer ${valid.slice(0, -4)}AAAA`,
      `Bearer ${huge}`,
      `Bearer ${valid}, Bearer ${valid}`,
      "Bearer user:grant:secret",
      `bearer\t${valid}`,
    ];
    const bodies = ["", "{", "[]", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy"}}', JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } })];
    const targets: [string, string][] = [
      ["POST", "/mcp"],
      ["GET", "/mcp"],
      ["DELETE", "/mcp"],
      ["GET", "/sse"],
      ["POST", `/message?sessionId=${"a".repeat(32)}`],
      ["POST", `/mcp?access_token=${valid}`],
      ["GET", "/"],
    ];
    const since = Date.now();
    const statuses = new Set<number>();
    for (const [method, path] of targets) {
      for (const authorization of [...credentials, `Bearer ${valid}`]) {
        for (const body of method === "POST" ? bodies : [undefined]) {
          const response = await fetch(`${server.url}${path}`, {
            method,
            headers: { authorization, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": "b".repeat(32) },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          const text = response.headers.get("content-type")?.includes("event-stream") ? "" : await response.text();
          if (response.body && text === "") await response.body.cancel().catch(() => {});
          statuses.add(response.status);
          expect(response.status, `${method} ${path} ${authorization.slice(0, 30)}`).toBeLessThan(500);
          expect(text).not.toContain(valid);
          expect(response.headers.get("www-authenticate") ?? "").not.toContain(valid.slice(-20));
        }
      }
    }
    // The variety was real: refusals of several kinds, and some requests let through.
    expect([...statuses].some((s) => s === 401)).toBe(true);
    expect([...statuses].some((s) => s === 400)).toBe(true);
    expect([...statuses].some((s) => s < 300)).toBe(true);
    const printed = server.printed(since).map((line) => line.text);
    // The debug log spoke (one line per request), and never of a token.
    expect(printed.some((line) => line.includes('"event":"http"'))).toBe(true);
    for (const secret of [valid, valid.split(".")[2]!, huge.slice(-30), "user:grant:secret"]) {
      expect(printed.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
