/**
 * What a user wires into `createWorker` besides the definition, inside workerd: `before` stages
 * (their own checks, after the Host and Origin checks and before any route) and routes of their
 * own (tried first, listed by `GET /`); a definition that cannot be served, which must leave
 * the Worker up (`npm start` keeps running) and say why on every MCP request; tools that run as
 * tasks on a Worker that binds no `MCP_TASK`, whose extension must not be advertised; and a
 * variable that cannot be used, said on every route (`/health` with a 503: the deployment is not
 * ready) and logged once. The error lines those Workers log are captured here, not printed.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { defineServer, homes, jsonSchema, tasks, tool, watch } from "durable-mcp";
import { HomeObject } from "../../capabilities/homes/durable/HomeObject.ts";
import { TaskObject } from "../../capabilities/tasks/durable/TaskObject.ts";
import { WatchObject } from "../../capabilities/watch/durable/WatchObject.ts";
import { createWorker, type WorkerEnv } from "durable-mcp/cloudflare";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BASE, initialize } from "./helpers.ts";
import { testServer } from "./testServer.ts";

const echo = tool({ name: "echo", description: "Echoes its text", input: jsonSchema({ type: "object", properties: { text: { type: "string" } } }), handler: async ({ text }) => String(text) });
const server = defineServer({ name: "options", version: "1.0.0", tools: [echo] });

const STATELESS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/list",
};
const listTools = (headers: Record<string, string> = {}) =>
  new Request(`${BASE}/mcp`, {
    method: "POST",
    headers: { ...STATELESS, ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
  });

afterEach(() => vi.restoreAllMocks());

/** The JSON lines the Workers built here log on `console.error` from now on, kept instead of printed. */
function errorLines(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(JSON.parse(line)));
  return lines;
}

/** One request through a Worker built here, with the test pool's bindings (its session objects serve the test server). */
async function fetchFrom(worker: { fetch: (request: Request, env: WorkerEnv, ctx: ExecutionContext) => Promise<Response> }, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("before stages", () => {
  const seen: string[] = [];
  const worker = createWorker(server, {
    before: [
      (request) => {
        seen.push(`first ${new URL(request.url).pathname}`);
      },
      (request) => {
        seen.push("second");
        if (new URL(request.url).pathname === "/health") return undefined;
        if (request.headers.get("authorization") !== "Bearer letmein") {
          return Response.json({ error: "unauthorized" }, { status: 401, headers: { "www-authenticate": 'Bearer realm="mcp"' } });
        }
      },
    ],
  });

  it("run in order and answer the request when one returns a Response", async () => {
    seen.length = 0;
    const refused = await fetchFrom(worker, listTools());
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="mcp"');
    expect(await refused.json()).toEqual({ error: "unauthorized" });
    expect(seen).toEqual(["first /mcp", "second"]);
  });

  it("let the request go on to its route when none answers", async () => {
    const allowed = await fetchFrom(worker, listTools({ authorization: "Bearer letmein" }));
    expect(allowed.status).toBe(200);
    expect((await allowed.json<any>()).result.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    expect((await fetchFrom(worker, new Request(`${BASE}/health`))).status).toBe(200);
  });

  it("run after the Origin check: a foreign page is refused with 403 before any stage sees it", async () => {
    seen.length = 0;
    const foreign = await fetchFrom(worker, listTools({ origin: "https://evil.test", authorization: "Bearer letmein" }));
    expect(foreign.status).toBe(403);
    expect(seen).toEqual([]);
  });

  it("that throw are answered as a JSON-RPC error, not a crash", async () => {
    const logged = errorLines();
    const broken = createWorker(server, {
      before: [
        () => {
          throw new Error("the token service is down");
        },
      ],
    });
    const response = await fetchFrom(broken, listTools());
    expect(response.status).toBe(500);
    const body = await response.json<any>();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32603 } });
    // Internal details stay in the log, not in the answer.
    expect(body.error.message).not.toContain("token service");
    expect(logged).toEqual([expect.objectContaining({ level: "error", event: "internal.error", message: "the token service is down" })]);
  });
});

describe("routes of your own", () => {
  const worker = createWorker(server, {
    routes: [
      { method: "GET", path: "/version", description: "the deployed build", handle: () => Response.json({ build: "abc123" }) },
      { method: "ALL", path: "/hook", handle: (request) => new Response(`hook got ${request.method}`) },
    ],
  });

  it("are served, for their method or every method with ALL", async () => {
    expect(await (await fetchFrom(worker, new Request(`${BASE}/version`))).json()).toEqual({ build: "abc123" });
    for (const method of ["GET", "POST", "PUT"]) {
      expect(await (await fetchFrom(worker, new Request(`${BASE}/hook`, { method, body: method === "GET" ? null : "x" }))).text()).toBe(`hook got ${method}`);
    }
  });

  it("leave the MCP routes as they were, and other methods on their path are 404 (they are the user's paths)", async () => {
    expect((await fetchFrom(worker, listTools())).status).toBe(200);
    expect((await fetchFrom(worker, new Request(`${BASE}/version`, { method: "POST", body: "x" }))).status).toBe(404);
  });

  it("are listed by GET / with their descriptions, before the MCP endpoints", async () => {
    const described = await (await fetchFrom(worker, new Request(`${BASE}/`))).json<any>();
    const endpoints = Object.keys(described.endpoints);
    expect(endpoints.slice(0, 2)).toEqual(["GET /version", "ALL /hook"]);
    expect(described.endpoints["GET /version"]).toBe("the deployed build");
    expect(endpoints).toEqual(expect.arrayContaining(["POST /mcp", "GET /mcp", "DELETE /mcp", "GET /sse", "POST /message", "GET /health"]));
    expect(described.protocolVersions).toEqual(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
  });
});

describe("the extensions a definition offers", () => {
  // The runtime tests' own definition (the example's tools and extensions): its session class is the one bound here.
  const worker = createWorker(testServer);

  it("are named alike by GET /, server/discover and a session's initialize (tasks, a 2026-07-28 extension, not in initialize)", async () => {
    const described = await (await fetchFrom(worker, new Request(`${BASE}/`))).json<any>();
    const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } };
    const discovered = await (await fetchFrom(worker, new Request(`${BASE}/mcp`, { method: "POST", headers: { ...STATELESS, "mcp-method": "server/discover" }, body: JSON.stringify(discover) }))).json<any>();
    const session = await fetchFrom(
      worker,
      new Request(`${BASE}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(initialize(0, "2025-11-25")) }),
    );
    const initialized = JSON.parse((await session.text()).replace(/^[\s\S]*?data: /, "").split("\n")[0]!);
    const own = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] }, "io.modelcontextprotocol/skills": { directoryRead: true } };
    expect(initialized.result.capabilities.extensions).toEqual(own);
    expect(discovered.result.capabilities.extensions).toEqual({ ...own, "io.modelcontextprotocol/tasks": {} });
    expect(described.extensions).toEqual(Object.keys(discovered.result.capabilities.extensions));
  });
});

describe("a definition that cannot be served", () => {
  // Two tools with one name: the mistake a new user makes while editing with `npm start` running.
  const twice = defineServer({ name: "broken", version: "0.0.1", tools: [echo, echo] });

  it("does not stop the Worker from starting", () => {
    expect(() => createWorker(twice)).not.toThrow();
  });

  it("answers every MCP request with 500 and the sentence that says why, logged once", async () => {
    const logged = errorLines();
    const worker = createWorker(twice);
    const requests = [
      listTools(),
      new Request(`${BASE}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(initialize(0, "2025-11-25")) }),
      new Request(`${BASE}/sse`, { headers: { accept: "text/event-stream" } }),
    ];
    for (const request of requests) {
      const response = await fetchFrom(worker, request);
      expect(response.status, `${request.method} ${request.url}`).toBe(500);
      const body = await response.json<any>();
      expect(body.error).toEqual({ code: -32603, message: "The server definition is invalid: Tool echo is defined twice" });
    }
    expect(logged).toEqual([{ level: "error", event: "definition.invalid", message: "The server definition is invalid: Tool echo is defined twice" }]);
  });

  it("answers /health 503 with the problem and shows it on GET /", async () => {
    const logged = errorLines();
    const worker = createWorker(twice);
    const health = await fetchFrom(worker, new Request(`${BASE}/health`));
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "unavailable", problem: "The server definition is invalid: Tool echo is defined twice" });
    const described = await (await fetchFrom(worker, new Request(`${BASE}/`))).json<any>();
    expect(described.server).toEqual({ name: "broken", version: "0.0.1" });
    expect(described.problem).toBe("The server definition is invalid: Tool echo is defined twice");
    expect(logged.map((line) => line.event)).toEqual(["definition.invalid"]);
  });
});

describe("a variable that cannot be used", () => {
  const SENTENCE = 'The configuration is invalid: MAX_QUEUE_BYTES must be a positive integer, got "4MiB"';

  it("answers every route, GET / included, with a JSON 500 naming the variable, /health with a 503 naming it, and logs it once per isolate", async () => {
    const logged = errorLines();
    const worker = createWorker(server);
    // One environment, as an isolate has: the Worker's bindings, one variable malformed.
    const broken = { ...env, MAX_QUEUE_BYTES: "4MiB" };
    const requests = () => [
      new Request(`${BASE}/`),
      listTools(),
      new Request(`${BASE}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(initialize(0, "2025-11-25")) }),
      new Request(`${BASE}/sse`, { headers: { accept: "text/event-stream" } }),
      new Request(`${BASE}/nowhere`),
    ];
    for (const request of [...requests(), ...requests()]) {
      const ctx = createExecutionContext();
      const response = await worker.fetch(request, broken, ctx);
      await waitOnExecutionContext(ctx);
      expect(response.status, `${request.method} ${request.url}`).toBe(500);
      expect(await response.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32603, message: SENTENCE } });
      const healthCtx = createExecutionContext();
      const health = await worker.fetch(new Request(`${BASE}/health`), broken, healthCtx);
      await waitOnExecutionContext(healthCtx);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: "unavailable", problem: SENTENCE });
    }
    expect(logged).toEqual([{ level: "error", event: "config.invalid", message: SENTENCE }]);
  });
});

describe("tools that run as tasks, on a Worker that binds no MCP_TASK", () => {
  const jobs = defineServer({
    name: "jobs",
    version: "1",
    tools: [
      tool({ name: "maybe", description: "May run as a task", input: jsonSchema({ type: "object" }), task: "optional", handler: async () => "ran as a plain call" }),
      tool({ name: "must", description: "Runs only as a task", input: jsonSchema({ type: "object" }), task: "required", handler: async () => "never runs" }),
    ],
    use: [tasks()],
  });
  const worker = createWorker(jobs);
  // The test pool's bindings without the task class: one environment, as one deployment has.
  const unbound: WorkerEnv = { ...env, MCP_TASK: undefined };
  const logged: string[] = [];
  const sentence = /this deployment hosts no tasks: on Workers, export `class McpTask extends worker\.McpTask \{\}` from the entry and bind it as MCP_TASK in wrangler\.toml/;
  afterEach(() => void vi.restoreAllMocks());

  const send = async (method: string, params: Record<string, unknown>, declared: boolean, name?: string) => {
    vi.spyOn(console, "error").mockImplementation((line: string) => void logged.push(line));
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request(`${BASE}/mcp`, {
        method: "POST",
        headers: { ...STATELESS, "mcp-method": method, ...(name ? { "mcp-name": name } : {}) },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method,
          params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": declared ? { extensions: { "io.modelcontextprotocol/tasks": {} } } : {} } },
        }),
      }),
      unbound,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return response;
  };

  it("leave the tasks extension out of server/discover, and the log line names the export and the binding", async () => {
    const discovered = await (await send("server/discover", {}, true)).json<any>();
    expect(discovered.result.capabilities.tools).toBeDefined();
    expect(discovered.result.capabilities.extensions).toBeUndefined();
    expect(logged.some((line) => line.includes('"config.tasks"') && sentence.test(line))).toBe(true);
  });

  it("run a tool whose task is optional as a plain call, declared or not", async () => {
    for (const declared of [true, false]) {
      const response = await send("tools/call", { name: "maybe", arguments: {} }, declared, "maybe");
      expect(response.status).toBe(200);
      expect((await response.json<any>()).result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "ran as a plain call" }] });
    }
  });

  it("answer a tool whose task is required with 500 and the sentence that says what to add, declared or not", async () => {
    for (const declared of [true, false]) {
      const response = await send("tools/call", { name: "must", arguments: {} }, declared, "must");
      expect(response.status, `declared: ${declared}`).toBe(500);
      const { error } = await response.json<any>();
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/^Tool must runs only as a task, and /);
      expect(error.message).toMatch(sentence);
    }
  });

  it("answer the task methods -32601, as any method a server does not advertise", async () => {
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const response = await send(method, { taskId: "0123456789abcdef0123456789abcdef" }, true, "0123456789abcdef0123456789abcdef");
      const { error } = await response.json<any>();
      expect(error.code, method).toBe(-32601);
    }
  });

  it("are listed as a problem by GET /, while the rest is served", async () => {
    const described = await (await worker.fetch(new Request(`${BASE}/`), unbound, createExecutionContext())).json<any>();
    expect(described.problem).toBeUndefined();
    expect(described.warnings).toEqual([expect.stringMatching(sentence)]);
  });
});

describe("what createWorker is given and offers besides fetch", () => {
  it("refuses, naming itself, anything defineServer did not make", () => {
    expect(() => createWorker({ name: "options", tools: [echo] } as never)).toThrow("createWorker takes what defineServer() returns");
  });

  it("has deleteUserData, which says what it needs on a Worker whose definition uses no homes", async () => {
    await expect(createWorker(server).deleteUserData(env as WorkerEnv, { issuer: "https://issuer.test", subject: "someone" })).rejects.toThrow(
      'deleteUserData needs homes() in the definition\'s "use"',
    );
  });
});

describe("the object classes a Worker offers", () => {
  const plain = tool({ name: "plain", description: "Runs", input: jsonSchema({ type: "object" }), handler: async () => "ran" });

  it("are those of the definition's `use` list, each serving that definition, beside McpSession", () => {
    expect(Object.keys(createWorker(defineServer({ name: "bare", version: "1", tools: [plain] }))).sort()).toEqual(["McpSession", "deleteUserData", "fetch"]);
    const worker = createWorker(defineServer({ name: "all", version: "1", tools: [plain], use: [tasks(), watch(), homes()] }));
    expect(Object.keys(worker).sort()).toEqual(["McpHome", "McpSession", "McpTask", "McpWatch", "deleteUserData", "fetch"]);
    expect(worker.McpTask.prototype).toBeInstanceOf(TaskObject);
    expect(worker.McpWatch.prototype).toBeInstanceOf(WatchObject);
    expect(worker.McpHome.prototype).toBeInstanceOf(HomeObject);
    // The types follow the list: a class the list does not bring is not there to export.
    // @ts-expect-error no tasks() in this definition's use
    expect(createWorker(defineServer({ name: "bare", version: "1", tools: [plain] })).McpTask).toBeUndefined();
  });
});
