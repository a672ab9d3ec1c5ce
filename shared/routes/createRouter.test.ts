/**
 * The router's own failures, on a runtime of this process (sessions in memory, as on Deno):
 * what the operator reads when the definition or the configuration cannot be served.
 * The router logs through `console`; each test captures those lines instead of printing them.
 */
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../config/readConfig.ts";
import { Logger } from "../log/Logger.ts";
import { LocalSessions } from "../host/LocalSessions.ts";
import { localRuntime } from "../runtime/localRuntime.ts";
import { tool } from "../server/defineServer.ts";
import { jsonSchema } from "../schema/jsonSchema.ts";
import { rateLimits } from "../../capabilities/oauth/rateLimits.ts";
import { createRouter } from "./createRouter.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

type Env = Record<string, string>;

function routerFor(server: CompiledServer, options: Parameters<typeof createRouter<Env>>[2] = {}) {
  return createRouter<Env>(
    server,
    (env) => {
      // Read here, as every runtime reads its own: a variable that cannot be used throws from this builder.
      const config = readConfig(env);
      const runtime = localRuntime(server, { config, logger: new Logger(config.logLevel), env });
      return { ...runtime, sessions: new LocalSessions(runtime) };
    },
    options,
  );
}

const BASE = "http://127.0.0.1:8787";
/** Every route but `/health`, which answers readiness (503) rather than the JSON-RPC 500. */
const requests = () => [
  new Request(`${BASE}/`),
  new Request(`${BASE}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
  }),
  new Request(`${BASE}/sse`, { headers: { accept: "text/event-stream" } }),
  new Request(`${BASE}/nowhere`),
];

let lines: string[];
beforeEach(() => {
  lines = [];
  for (const level of ["error", "warn", "log"] as const) vi.spyOn(console, level).mockImplementation((line: string) => void lines.push(line));
});
afterEach(() => vi.restoreAllMocks());
const logged = () => lines.map((line) => JSON.parse(line) as Record<string, string>);

describe("createRouter: a definition that cannot be served", () => {
  it("logs definition.invalid with the whole sentence, its fix included, however long", async () => {
    // A valibot schema without its converter: the sentence ends with the fix, past 256 characters.
    const server = new CompiledServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "d", input: v.object({ a: v.string() }) as never, handler: async () => "" })] });
    expect(server.problem?.message.length).toBeGreaterThan(256);
    await routerFor(server)(new Request(`${BASE}/health`), {});
    const line = logged().find((entry) => entry.event === "definition.invalid");
    expect(line?.message).toBe(server.problem!.message);
    expect(line?.message).toMatch(/npm install @valibot\/to-json-schema\), e\.g\. input: toStandardJsonSchema\(v\.object\(\{ … \}\)\)$/);
  });

  it("answers /health 503 with the sentence while every MCP request is a 500, and 200 once the definition is fixed", async () => {
    const twice = tool({ name: "t", description: "d", input: jsonSchema({ type: "object" }), handler: async () => "" });
    const broken = new CompiledServer({ name: "s", version: "1", tools: [twice, twice] });
    const health = await routerFor(broken)(new Request(`${BASE}/health`), {});
    expect(health.status).toBe(503);
    expect(health.headers.get("cache-control")).toBe("no-store");
    expect(await health.json()).toEqual({ status: "unavailable", problem: broken.problem!.message });
    const fixed = await routerFor(new CompiledServer({ name: "s", version: "1", tools: [twice] }))(new Request(`${BASE}/health`), {});
    expect(fixed.status).toBe(200);
    expect(await fixed.json()).toEqual({ status: "ok" });
  });
});

describe("createRouter: a variable that cannot be used", () => {
  const SENTENCE = 'The configuration is invalid: MAX_QUEUE_BYTES must be a positive integer, got "4MiB"';
  const server = new CompiledServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "d", input: jsonSchema({ type: "object" }), handler: async () => "" })] });

  it("answers every route with a JSON 500 naming the variable, /health with a 503 naming it, and logs it once", async () => {
    const handle = routerFor(server);
    const env = { MAX_QUEUE_BYTES: "4MiB" };
    for (const request of [...requests(), ...requests()]) {
      const response = await handle(request, env);
      expect(response.status, `${request.method} ${request.url}`).toBe(500);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32603, message: SENTENCE } });
      const health = await handle(new Request(`${BASE}/health`), env);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: "unavailable", problem: SENTENCE });
    }
    expect(logged()).toEqual([{ level: "error", event: "config.invalid", message: SENTENCE }]);
  });

  it("serves again once the variable is fixed (a new environment, as after a deploy)", async () => {
    const handle = routerFor(server);
    expect((await handle(new Request(`${BASE}/health`), { MAX_QUEUE_BYTES: "4MiB" })).status).toBe(503);
    expect((await handle(new Request(`${BASE}/health`), { MAX_QUEUE_BYTES: "4194304" })).status).toBe(200);
  });
});

describe("createRouter: rateLimits given without rateLimits()", () => {
  it("answers every route with a JSON 500 that says to wrap the limits in rateLimits(), and logs it once", async () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "d", input: jsonSchema({ type: "object" }), handler: async () => "" })] });
    // The limits as routers took them before rateLimits(): refused with the fix, not ignored.
    const handle = routerFor(server, { rateLimits: { perAddress: { limit: 1, periodSeconds: 60 } } as never });
    const env = {};
    for (const request of requests()) {
      const response = await handle(request, env);
      expect(response.status, `${request.method} ${request.url}`).toBe(500);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/"rateLimits" takes rateLimits\(limits\) \(from durable-mcp\), which brings the limiter; wrap the limits you gave/);
    }
    expect(logged().filter((line) => line.level === "error")).toHaveLength(1);
  });

  it("limits per address with rateLimits() alone, without authorization: 429 with Retry-After past the limit", async () => {
    const server = new CompiledServer({ name: "s", version: "1" });
    const handle = routerFor(server, { rateLimits: rateLimits({ perAddress: { limit: 2, periodSeconds: 60 } }) });
    // The address comes from a proxy's header here: this router's platform knows none of its own.
    const env = { TRUST_PROXY: "x-real-ip" };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await handle(new Request(`${BASE}/`, { headers: { "x-real-ip": "203.0.113.9" } }), env)).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses[2]).toBe(429);
  });
});

describe("createRouter: authorization given without oauth()", () => {
  it("answers every route with a JSON 500 that says to wrap the options in oauth(), and logs it once", async () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "d", input: jsonSchema({ type: "object" }), handler: async () => "" })] });
    // The options object as routers took it before oauth(): refused with the fix, not half-used.
    const handle = routerFor(server, { authorization: { verify: async () => ({ subject: "x", scopes: [] }) } as never });
    const env = {};
    for (const request of requests()) {
      const response = await handle(request, env);
      expect(response.status, `${request.method} ${request.url}`).toBe(500);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/"authorization" takes oauth\(options\) \(from durable-mcp\), which brings the token checks; wrap the options you gave/);
    }
    expect(logged().filter((line) => line.level === "error")).toHaveLength(1);
  });
});

describe("createRouter: GET /, for a browser and for everything else (issue 24)", () => {
  const server = new CompiledServer({ name: "s", version: "1", tools: [tool({ name: "lookUp", description: "Looks things up", input: jsonSchema({ type: "object" }), handler: async () => "" })] });
  const get = (accept?: string, headers: Record<string, string> = {}) => routerFor(server)(new Request(`${BASE}/`, { headers: accept === undefined ? headers : { ...headers, accept } }), {});
  /** What Chromium sends for a page it navigates to. */
  const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8";

  it("answers a browser's Accept with the page: HTML, no script allowed, varying by Accept", async () => {
    for (const accept of [BROWSER, "text/html", "TEXT/HTML; charset=utf-8"]) {
      const response = await get(accept);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("vary")).toBe("Accept");
      const html = await response.text();
      expect(html).toContain("<code>lookUp</code>");
      expect(html).toContain(`<code>${BASE}/mcp</code>`);
    }
  });

  it("answers curl's */*, application/json, no Accept and a refused text/html with the same JSON, varying by Accept", async () => {
    const bodies = new Set<string>();
    for (const accept of [undefined, "*/*", "application/json", "text/html;q=0, application/json"]) {
      const response = await get(accept);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("vary")).toBe("Accept");
      expect(response.headers.get("content-security-policy")).toBeNull();
      bodies.add(await response.text());
    }
    expect(bodies.size).toBe(1);
    const body = JSON.parse([...bodies][0]!);
    expect(body).toMatchObject({ server: { name: "s", version: "1" }, runtime: "durable-mcp" });
    expect(Object.keys(body)).toEqual(["server", "runtime", "protocolVersions", "extensions", "endpoints", "limits"]);
  });

  it("answers a POST to / (an MCP URL missing its /mcp) with 405 naming /mcp, and GET in Allow", async () => {
    const posted = await routerFor(server)(new Request(`${BASE}/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), {});
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET");
    expect(((await posted.json()) as { error: { message: string } }).error.message).toBe(`POST / is not an MCP endpoint: send MCP messages to ${BASE}/mcp (or ${BASE}/sse for HTTP+SSE clients); GET / describes this server`);
  });

  it("keeps Vary: Accept beside CORS's Origin for a cross-origin request", async () => {
    const origin = { origin: BASE };
    expect((await get(BROWSER, origin)).headers.get("vary")).toBe("Accept, Origin");
    expect((await get("*/*", origin)).headers.get("vary")).toBe("Accept, Origin");
  });
});
