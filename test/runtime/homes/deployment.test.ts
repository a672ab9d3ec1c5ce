/**
 * A deployment that cannot host the homes its definitions declare says so, the way a
 * broken definition does: every MCP request is answered 500 with the sentence that says what to
 * do, `GET /` shows it, `/health` answers 503 with it (monitors see the deployment cannot serve) —
 * never a silent fallback; a misspelled `MCP_HOME` is found by the bindings the sentence names.
 * So does a Worker behind authorization with no `resource`, on a host that is not loopback: the
 * audience a token must name is never taken from a client's Host header. The
 * `config.homes` line each Worker logs is captured here, and checked whole.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { oauth } from "durable-mcp";
import { createWorker, type WorkerEnv } from "durable-mcp/cloudflare";
import { afterEach, describe, expect, it, vi } from "vitest";
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
  const health = await fetchFrom(worker, new Request(`${BASE}/health`));
  expect(health.status).toBe(503);
  expect(await health.json()).toEqual({ status: "unavailable", problem: answered });
  expect((await (await fetchFrom(worker, new Request(`${BASE}/`))).json<any>()).problem).toMatch(sentence);
  // Once for the Worker's environment, the sentence as answered: not cut before its end.
  expect(logged).toEqual([{ level: "error", event: "config.homes", message: answered }]);
}

describe("a deployment that cannot host its homes", () => {
  it("says so for user homes without authorization", async () => {
    await expectRefusedEverywhere(createWorker(homeServer), /keep their state in the signed-in user's home \(home: "user"\), and this deployment has no signed-in user: configure `authorization`/);
  });

  it("names what is bound, and the closest name, when MCP_HOME is misspelled", async () => {
    const logged: Record<string, string>[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void logged.push(JSON.parse(line)));
    const worker = createWorker(homeServer, { authorization: oauth({ authorizationServers: ["https://issuer.example"], verify: async () => ({ ok: false as const, reason: "unused" }), resource: "https://durable-mcp.test/mcp" }) });
    // The home class bound under a name one letter off, as a hand-edited wrangler.toml may have it.
    const misspelled = { ...env, MCP_HOMES: env.MCP_HOME, MCP_HOME: undefined };
    const ctx = createExecutionContext();
    const health = await worker.fetch(new Request(`${BASE}/health`), misspelled, ctx);
    await waitOnExecutionContext(ctx);
    expect(health.status).toBe(503);
    const { problem } = await health.json<{ problem: string }>();
    expect(problem).toMatch(/this Worker binds [\w, ]*\bMCP_HOMES\b[\w, ]*, and no MCP_HOME: is MCP_HOMES meant to be MCP_HOME\?$/);
    expect(problem).toContain("MCP_SESSION");
    expect(logged).toEqual([{ level: "error", event: "config.homes", message: problem }]);
  });
});

describe("authorization without a resource", () => {
  /** Never reached: the request is answered before any token is checked. */
  const verify = async () => ({ ok: false as const, reason: "no token is valid here" });
  const sentence = /checks access tokens but has no `resource` configured, and this request is addressed to "durable-mcp\.test": set `resource`/;

  it("on a host that is not loopback, answers every MCP endpoint, GET / and the metadata 500 with the sentence, /health 503 with it", async () => {
    const worker = createWorker(homeServer, { authorization: oauth({ authorizationServers: ["https://issuer.example"], verify }) });
    const requests = [...mcpRequests(), new Request(`${BASE}/`), new Request(`${BASE}/.well-known/oauth-protected-resource/mcp`), new Request(`${BASE}/.well-known/oauth-protected-resource`)];
    for (const request of requests) {
      const response = await fetchFrom(worker, request);
      expect(response.status, `${request.method} ${request.url}`).toBe(500);
      const { error } = await response.json<any>();
      expect(error.code).toBe(-32603);
      expect(error.message, request.url).toMatch(sentence);
    }
    const health = await fetchFrom(worker, new Request(`${BASE}/health`));
    expect(health.status).toBe(503);
    expect((await health.json<any>()).problem).toMatch(sentence);
    // On loopback the same Worker serves: the resource is the request's origin.
    expect((await fetchFrom(worker, new Request("http://127.0.0.1:8787/health"))).status).toBe(200);
  });

  it("on a loopback host, takes the resource from the request's origin, port included", async () => {
    const worker = createWorker(homeServer, { authorization: oauth({ authorizationServers: ["https://issuer.example"], verify }) });
    const metadata = await fetchFrom(worker, new Request("http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp"));
    expect((await metadata.json<any>()).resource).toBe("http://127.0.0.1:8787/mcp");
    const challenge = await fetchFrom(worker, new Request("http://localhost:9000/mcp", { method: "POST" }));
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toBe('Bearer resource_metadata="http://localhost:9000/.well-known/oauth-protected-resource/mcp", DPoP algs="ES256 ES384 EdDSA PS256 RS256"');
  });

  it("with `resource` configured, serves the metadata and the 401 for it whatever host the request names (TLS ended in front)", async () => {
    const worker = createWorker(homeServer, { authorization: oauth({ authorizationServers: ["https://issuer.example"], verify, resource: "https://mcp.example.com/mcp" }) });
    const metadata = await fetchFrom(worker, new Request(`${BASE}/.well-known/oauth-protected-resource/mcp`));
    expect(metadata.status).toBe(200);
    expect((await metadata.json<any>()).resource).toBe("https://mcp.example.com/mcp");
    const challenge = await fetchFrom(worker, new Request(`${BASE}/mcp`, { method: "POST" }));
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toBe('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", DPoP algs="ES256 ES384 EdDSA PS256 RS256"');
  });
});
