/**
 * `durable-mcp check` against servers built to be wrong, one way each: the example (and the OAuth
 * example) behind a proxy that breaks one thing a host relies on (`brokenProxy`), and a Worker
 * whose definition is invalid (`test/fixtures/brokenWorker.ts`). Each must fail
 * on the right probe with a message that names the cause, while a transparent proxy passes, so
 * the proxy itself breaks nothing. Workers only: the probes are the same on every runtime, and
 * check.test.ts runs the passing case on each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport } from "../../check/formatReport.ts";
import { runCheck } from "../../check/runCheck.ts";
import type { Finding } from "../../check/wire/Finding.ts";
import { startServer } from "../../scripts/startServer.mjs";
import { type BrokenProxy, brokenProxy, editJson, type Transform } from "../support/brokenProxy.ts";
import { connectSseWithOAuth, connectWithOAuth, HeadlessOAuthProvider } from "../support/headlessOAuth.ts";

let plain: Awaited<ReturnType<typeof startServer>>;
let oauth: Awaited<ReturnType<typeof startServer>>;
const proxies: BrokenProxy[] = [];

beforeAll(async () => {
  [plain, oauth] = await Promise.all([
    startServer({ vars: { LOG_LEVEL: "error" } }),
    startServer({ entry: "example/oauth/worker.ts", config: "example/oauth/wrangler.toml", vars: { LOG_LEVEL: "error" } }),
  ]);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all([plain?.dispose(), oauth?.dispose()]);
});

/** The JSON-RPC method a request carries, if it is a POST of one message. */
async function rpcMethod(request: Request): Promise<string | undefined> {
  if (request.method !== "POST") return undefined;
  const body = (await request.clone().json().catch(() => undefined)) as { method?: unknown } | undefined;
  return typeof body?.method === "string" ? body.method : undefined;
}

async function checkBehind(upstream: string, transform?: Transform, path = "/mcp"): Promise<Finding[]> {
  const proxy = await brokenProxy(upstream, transform);
  proxies.push(proxy);
  return runCheck({ url: `${proxy.url}${path}`, timeoutMs: 10_000 });
}

const failures = (findings: Finding[]) => findings.filter((f) => f.verdict === "fail").map((f) => `${f.probe}: ${f.summary}`);

describe("a transparent proxy", () => {
  it("passes, in front of the example and of the OAuth example", async () => {
    expect(failures(await checkBehind(plain.url))).toEqual([]);
    const signedIn = await checkBehind(oauth.url);
    expect(failures(signedIn)).toEqual([]);
    expect(signedIn.find((f) => f.probe === "oauth")).toMatchObject({ verdict: "pass", summary: expect.stringMatching(/PKCE S256, client ID metadata documents and dynamic registration$/) });
  });
});

describe("redirects", () => {
  it("a redirect to another origin is a finding that names where it pointed, not followed: that origin never sees --header or --token", async () => {
    const seen: string[] = [];
    const other = await brokenProxy(plain.url, async (request, forward) => {
      seen.push(`${request.method} ${new URL(request.url).pathname} x-api-key: ${request.headers.get("x-api-key")}, authorization: ${request.headers.get("authorization")}`);
      return forward(request);
    });
    const first = await brokenProxy(plain.url, async (request) => new Response(null, { status: 307, headers: { location: `${other.url}${new URL(request.url).pathname}` } }));
    proxies.push(other, first);
    const findings = await runCheck({ url: `${first.url}/mcp`, headers: { "x-api-key": "secret", authorization: "Bearer T" }, timeoutMs: 10_000 });
    expect(seen).toEqual([]);
    const oauth = findings.find((f) => f.probe === "oauth");
    expect(oauth).toMatchObject({ verdict: "fail", summary: `POST ${first.url}/mcp was redirected (HTTP 307) to another origin, ${other.url}/mcp: not followed` });
    expect(oauth?.why).toMatch(/--token and --header values only to the origin you named/);
    expect(findings.filter((f) => f.verdict !== "fail")).toEqual([]);
  });

  it("a redirect within the origin is followed, as hosts follow it", async () => {
    const findings = await checkBehind(plain.url, async (request, forward) => {
      const { pathname } = new URL(request.url);
      if (!pathname.startsWith("/v1/")) return forward(request);
      return new Response(null, { status: 307, headers: { location: pathname.slice(3) } });
    }, "/v1/mcp");
    expect(failures(findings)).toEqual([]);
    expect(findings.find((f) => f.probe === "report")).toMatchObject({ verdict: "pass" });
  });
});

describe("the OAuth example, signed in", () => {
  /** An access token for `resource` (`/mcp` or `/sse`), as a host gets one: registration, consent, code and PKCE. */
  async function tokenFor(resource: "mcp" | "sse"): Promise<string> {
    const provider = new HeadlessOAuthProvider({ expectedIssuer: oauth.url });
    const connect = resource === "mcp" ? connectWithOAuth : connectSseWithOAuth;
    const { client } = await connect(new URL(`${oauth.url}/${resource}`), { provider });
    await client.close();
    return provider.storedTokens!.access_token;
  }

  it("with --token and --sse-token, passes the HTTP+SSE probe; with --token alone, warns that /sse wants --sse-token", async () => {
    const [token, sseToken] = await Promise.all([tokenFor("mcp"), tokenFor("sse")]);
    const headers = { authorization: `Bearer ${token}` };
    const both = await runCheck({ url: `${oauth.url}/mcp`, headers, sseToken, timeoutMs: 10_000 });
    expect(failures(both)).toEqual([]);
    expect(both.find((f) => f.probe === "sse")).toMatchObject({ verdict: "pass", summary: expect.stringMatching(/^SDK client on HTTP\+SSE at \/sse: 2025-11-25, \d+ tools/) });
    const mcpOnly = await runCheck({ url: `${oauth.url}/mcp`, headers, timeoutMs: 10_000 });
    expect(failures(mcpOnly)).toEqual([]);
    const sse = mcpOnly.find((f) => f.probe === "sse");
    expect(sse).toMatchObject({ verdict: "warn", summary: "HTTP+SSE at /sse wants a token of its own (HTTP 401): pass --sse-token to check it" });
    expect(sse?.why).toMatch(/its own protected resource/);
  });
});

describe("servers built to be wrong", () => {
  it("discover disagreeing with initialize fails discover, naming the difference", async () => {
    const findings = await checkBehind(plain.url, async (request, forward) => {
      const response = await forward(request);
      if ((await rpcMethod(request)) !== "server/discover") return response;
      return editJson(response, (body) => delete body.result.capabilities.resources);
    });
    expect(failures(findings)).toEqual([expect.stringMatching(/^discover: server\/discover disagrees with initialize: resources is in initialize's capabilities only$/)]);
    expect(findings.find((f) => f.verdict === "fail")?.why).toMatch(/ChatGPT's connector scanner .* \(a 424\)/);
  });

  it("discover advertising a list the server does not serve fails discover", async () => {
    const findings = await checkBehind(plain.url, async (request, forward) => {
      const method = await rpcMethod(request);
      const response = await forward(request);
      if (method !== "server/discover" && method !== "initialize") return response;
      return editJson(response, (body) => (body.result.capabilities.prompts = {}));
    });
    expect(failures(findings)).toContainEqual(expect.stringMatching(/^discover: discover advertises prompts, but prompts\/list at 2026-07-28 got HTTP 404, JSON-RPC error -32601/));
  });

  it("a server that insists on Mcp-Session-Id fails per-call, as claude.ai would", async () => {
    const findings = await checkBehind(plain.url, async (request, forward) => {
      const method = await rpcMethod(request);
      const legacy = request.headers.get("mcp-protocol-version") !== "2026-07-28";
      const onMcp = new URL(request.url).pathname === "/mcp";
      if (request.method === "POST" && onMcp && legacy && method !== "initialize" && !request.headers.has("mcp-session-id")) {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Bad Request: No valid session ID provided" } }, { status: 400 });
      }
      return forward(request);
    });
    expect(failures(findings)).toEqual([expect.stringMatching(/^per-call: round 1: notifications\/initialized without Mcp-Session-Id got HTTP 400, JSON-RPC error -32600: Bad Request: No valid session ID provided$/)]);
    expect(findings.find((f) => f.verdict === "fail")?.why).toMatch(/claude\.ai does not echo Mcp-Session-Id/);
  });

  it("a list the SDK cannot parse fails the SDK clients, with the SDK's own error", async () => {
    const findings = await checkBehind(plain.url, async (request, forward) => {
      const response = await forward(request);
      if ((await rpcMethod(request)) !== "tools/list") return response;
      return editJson(response, (body) => body.result && (body.result.tools = [{ name: 42 }]));
    });
    // Both Streamable HTTP clients; on HTTP+SSE the list travels on the stream, which the proxy passes untouched.
    const sdk = failures(findings).filter((line) => line.startsWith("sdk:"));
    expect(sdk).toHaveLength(2);
    for (const line of sdk) expect(line).toMatch(/^sdk: SDK client on Streamable HTTP \(.*\): Invalid result for tools\/list: \[ \{ "expected": "string", "code": "invalid_type", "path": \[ "tools", 0, "name" \]/);
  });

  it("no HTTP+SSE endpoint (404 or 405) is a warning on sse, not a failure, saying which clients cannot connect", async () => {
    for (const status of [404, 405]) {
      const findings = await checkBehind(plain.url, async (request, forward) => (new URL(request.url).pathname === "/sse" ? new Response("Not Found", { status }) : forward(request)));
      expect(failures(findings)).toEqual([]);
      const sse = findings.find((f) => f.probe === "sse");
      expect(sse).toMatchObject({ verdict: "warn", summary: `no HTTP+SSE at /sse (HTTP ${status})` });
      expect(sse?.why).toMatch(/deprecated HTTP\+SSE transport.*--skip sse/);
    }
  });

  it("a preflight that leaves out the MCP headers fails cors", async () => {
    const findings = await checkBehind(plain.url, async (request, forward) => {
      const response = await forward(request);
      if (request.method !== "OPTIONS") return response;
      const headers = new Headers(response.headers);
      headers.set("access-control-allow-headers", "content-type");
      return new Response(null, { status: 204, headers });
    });
    expect(failures(findings)).toEqual([expect.stringMatching(/^cors: the preflight does not allow authorization, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id$/)]);
  });

  it("a relative resource_metadata fails oauth, as claude.ai's connector silently would", async () => {
    const findings = await checkBehind(oauth.url, async (request, forward) => {
      const response = await forward(request);
      const challenge = response.headers.get("www-authenticate");
      if (!challenge) return response;
      const headers = new Headers(response.headers);
      headers.set("www-authenticate", challenge.replace(/resource_metadata="https?:\/\/[^/]+/, 'resource_metadata="'));
      return new Response(response.body, { status: response.status, headers });
    });
    expect(failures(findings)).toEqual([expect.stringMatching(/^oauth: resource_metadata is not an absolute URL: "\/\.well-known\/oauth-protected-resource/)]);
  });

  it("authorization server metadata without S256 or any way to register fails oauth, naming both", async () => {
    const findings = await checkBehind(oauth.url, async (request, forward) => {
      const response = await forward(request);
      if (!new URL(request.url).pathname.startsWith("/.well-known/oauth-authorization-server")) return response;
      return editJson(response, (body) => {
        body.code_challenge_methods_supported = ["plain"];
        delete body.registration_endpoint;
        delete body.client_id_metadata_document_supported;
      });
    });
    const [line] = failures(findings);
    expect(line).toMatch(/^oauth: authorization server metadata \(.*\): code_challenge_methods_supported does not list S256 .*; it offers neither client ID metadata documents nor dynamic registration/);
  });

  it("protected-resource metadata naming another resource fails oauth", async () => {
    const findings = await checkBehind(oauth.url, async (request, forward) => {
      const response = await forward(request);
      if (!new URL(request.url).pathname.startsWith("/.well-known/oauth-protected-resource")) return response;
      return editJson(response, (body) => (body.resource = "https://elsewhere.example/mcp"));
    });
    expect(failures(findings)).toEqual([expect.stringMatching(/^oauth: the metadata's resource is "https:\/\/elsewhere\.example\/mcp", not http:\/\/127\.0\.0\.1:\d+\/mcp$/)]);
  });

  it("a GET / answer carrying escape sequences and newlines is printed escaped, one line per finding, no fake verdict", async () => {
    const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[H\nPASS  oauth     signed in as admin";
    const findings = await checkBehind(plain.url, async (request, forward) => {
      if (new URL(request.url).pathname !== "/") return forward(request);
      return Response.json({ runtime: "durable-mcp", server: { name: `evil\x1b[31m`, version: "1" }, warnings: [hostile] });
    });
    expect(findings.find((f) => f.probe === "report")?.summary).toContain(hostile);
    const printed = formatReport("http://127.0.0.1/mcp", findings);
    expect(printed).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    expect(printed.split("\n").filter((line) => /signed in as admin/.test(line))).toEqual([
      String.raw`WARN  report    evil\x1b[31m 1 reports: \x1b]0;pwned\x07\x1b[2J\x1b[H\nPASS  oauth     signed in as admin`,
    ]);
  });

  it("a deployment that cannot serve its definition fails report first, with the definition's problem", async () => {
    const broken = await startServer({ entry: "test/fixtures/brokenWorker.ts", vars: { LOG_LEVEL: "error" }, captureLogs: true });
    try {
      const findings = await runCheck({ url: `${broken.url}/mcp`, timeoutMs: 10_000 });
      expect(failures(findings)[0]).toMatch(/^report: broken 0\.0\.1 reports that it cannot serve its definition: The server definition is invalid: .*echo/);
    } finally {
      await broken.dispose();
    }
  });

  it("nothing serving fails every probe that needs an answer, naming the refused connection", async () => {
    const proxy = await brokenProxy(plain.url);
    const url = `${proxy.url}/mcp`;
    await proxy.close();
    const findings = await runCheck({ url, timeoutMs: 5_000 });
    expect(findings.every((f) => f.verdict === "fail")).toBe(true);
    expect(findings[0]!.summary).toMatch(/^the probe could not finish: fetch failed: .*ECONNREFUSED/);
  });
});
