/**
 * A deployment that cannot host the homes its definitions declare says so (issue 20), the way a
 * broken definition does: every MCP request is answered 500 with the sentence that says what to
 * do, `GET /` shows it, `/health` stays up — never a silent fallback. The `config.homes` line each
 * Worker logs is captured here, and checked whole (the sentence ends with what to do).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as z from "zod/mini";
import { defineServer } from "durable-mcp";
import { createWorker, type WorkerEnv } from "durable-mcp/cloudflare";
import { afterEach, describe, expect, it, vi } from "vitest";
import { notebook } from "../../../example/notes.ts";
import { initialize } from "../../support/messages.ts";
import { homeServer } from "./homeServer.ts";
import { BASE } from "./signedIn.ts";

async function fetchFrom(worker: { fetch: (request: Request, env: WorkerEnv, ctx: ExecutionContext) => Promise<Response> }, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const mcpRequests = () => [
  new Request(`${BASE}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }),
  }),
  new Request(`${BASE}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(initialize(0, "2025-11-25")) }),
  new Request(`${BASE}/sse`, { headers: { accept: "text/event-stream" } }),
];

afterEach(() => vi.restoreAllMocks());

async function expectRefusedEverywhere(worker: Parameters<typeof fetchFrom>[0], sentence: RegExp): Promise<void> {
  const logged: Record<string, string>[] = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => void logged.push(JSON.parse(line)));
  let answered = "";
  for (const request of mcpRequests()) {
    const response = await fetchFrom(worker, request);
    expect(response.status, `${request.method} ${request.url}`).toBe(500);
    const { error } = await response.json<any>();
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(sentence);
    answered = error.message;
  }
  expect((await fetchFrom(worker, new Request(`${BASE}/health`))).status).toBe(200);
  expect((await (await fetchFrom(worker, new Request(`${BASE}/`))).json<any>()).problem).toMatch(sentence);
  // Once for the Worker's environment, the sentence as answered: not cut before its end.
  expect(logged).toEqual([{ level: "error", event: "config.homes", message: answered }]);
}

describe("a deployment that cannot host its homes", () => {
  it("says so for user homes without authorization", async () => {
    await expectRefusedEverywhere(createWorker(homeServer), /keep their state in the signed-in user's home \(home: "user"\), and this deployment has no signed-in user: configure `authorization`/);
  });

  it("says so for homes without the home class exported (homeObject) and bound", async () => {
    const handles = defineServer({ name: "handles", version: "1", toJsonSchema: z.toJSONSchema, tools: [notebook] });
    await expectRefusedEverywhere(createWorker(handles), /this deployment hosts no homes: on Workers, export `class McpHome extends homeObject\(server\) \{\}` from the entry and bind it as MCP_HOME/);
  });
});
