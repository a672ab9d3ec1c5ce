/**
 * Traces as a collector receives them, on workerd and on Deno (`RUNTIME=deno`): the
 * example server with an OTLP/HTTP JSON endpoint that is a real receiver on loopback. A client's
 * `params._meta.traceparent` is continued — the server span has its trace id, its span as parent,
 * the OpenTelemetry MCP span name and attributes — on a 2025 session (on Workers with the
 * session object's span as the child of the Worker's) and for a task tool (its run's span in
 * the same trace, under the call that created it); the duration metric arrives too.
 *
 * Secrets stay out of spans and log lines alike: a handler error holding a password and a bearer
 * token, one naming its handle (`ctx.handle`), and a read of a handle's resource (recorded as its
 * template). A request id of 3,000,000 characters is recorded cut.
 *
 * The server is the runtime tests' (`testServer.ts`: the example's tools and probes), whose
 * `use` lists `otlp()`. Workers export with it; Deno through its built-in OpenTelemetry
 * (`OTEL_DENO=true`), which batches, so spans are awaited, not expected at once.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, MODERN, openStreamableSession, postJson } from "../support/httpSession.ts";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";

/** Sessions in the server's own process (Deno, Node): no session object, so no span of its own. */
const IN_PROCESS = process.env.RUNTIME === "deno" || process.env.RUNTIME === "node";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
/** How long the receiver waits for a span: Deno's SDK exports on its own schedule. */
const ARRIVAL_MS = 30_000;

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code: number; message?: string };
}

const spans: Span[] = [];
/** The largest body the receiver was sent, in bytes. */
let largestExport = 0;
const metricNames = new Set<string>();
let receiver: Server;
let receiverUrl = "";
let example: Awaited<ReturnType<typeof startServer>>;
let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const bytes = Buffer.concat(chunks);
      largestExport = Math.max(largestExport, bytes.length);
      const body = JSON.parse(bytes.toString("utf8"));
      for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans.push(...scope.spans);
      for (const resource of body.resourceMetrics ?? []) for (const scope of resource.scopeMetrics ?? []) for (const metric of scope.metrics ?? []) metricNames.add(metric.name);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  nws = await startNwsFixtureServer();
  example = await startServer({
    entry: "test/runtime/testWorker.ts",
    // The handler errors below are logged on purpose: kept for the test to read, not printed.
    captureLogs: true,
    vars: {
      LOG_LEVEL: "error",
      NWS_BASE_URL: nws.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "weather-e2e",
      // Deno's built-in OpenTelemetry, and its export intervals shortened for the test.
      OTEL_DENO: "true",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
    },
  });
}, 120_000);
afterAll(async () => {
  await example?.dispose();
  await nws?.close();
  // Exporters keep their connections alive: close them, or the receiver waits for them.
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

/** The JSON-RPC reply in a POST's answer, JSON or SSE. */
const replyOf = (text: string) => JSON.parse(text.trimStart().startsWith("{") ? text : text.split("\n").find((line) => line.startsWith("data: "))!.slice(6));

/** The spans of the test's trace that match, once there are `count` of them. */
async function arrived(match: (span: Span) => boolean, count = 1): Promise<Span[]> {
  const deadline = Date.now() + ARRIVAL_MS;
  for (;;) {
    const found = spans.filter((span) => span.traceId === TRACE_ID && match(span));
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("traces to an OTLP receiver", () => {
  it("continue a client's trace through a 2025 session: the server span and, on Workers, the session object's child", { timeout: 60_000 }, async () => {
    const session = await openStreamableSession(example.url);
    const response = await session.post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "traced" }, _meta: { traceparent: TRACEPARENT } } });
    expect(await response.text()).toContain("TRACED");

    const [server] = await arrived((span) => span.name === "tools/call toUpperCase" && span.parentSpanId === CLIENT_SPAN);
    expect(server, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(server!.kind).toBe(2);
    expect(attribute(server!, "mcp.method.name")).toBe("tools/call");
    expect(attribute(server!, "gen_ai.tool.name")).toBe("toUpperCase");
    expect(attribute(server!, "gen_ai.operation.name")).toBe("execute_tool");
    expect(attribute(server!, "jsonrpc.request.id")).toBe("5");
    expect(attribute(server!, "mcp.protocol.version")).toBe("2025-11-25");
    expect(attribute(server!, "network.transport")).toBe("tcp");
    // The session's log tag, never its id (a bearer secret).
    expect(attribute(server!, "mcp.session.id")).toMatch(/^[0-9a-f]{12}$/);
    expect(attribute(server!, "mcp.session.id")).not.toBe(session.sessionId);
    expect(JSON.stringify(spans)).not.toContain(session.sessionId);
    if (!IN_PROCESS) {
      const [child] = await arrived((span) => span.parentSpanId === server!.spanId);
      expect(child).toMatchObject({ name: "tools/call toUpperCase", kind: 1 });
      expect(attribute(child!, "mcp.session.id")).toBe(attribute(server!, "mcp.session.id"));
    }
  });

  it("carry the trace into a task's run, under the call that created the task", { timeout: 60_000 }, async () => {
    const _meta = {
      traceparent: TRACEPARENT,
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientInfo": { name: "telemetry-e2e", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    };
    const response = await postJson(`${example.url}/mcp`, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "alertSweep", arguments: { states: ["CA"] }, _meta } }, {
      headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "alertSweep" },
    });
    const created = (await response.json()) as { result: { resultType: string; taskId: string } };
    expect(created.result.resultType).toBe("task");

    const [call] = await arrived((span) => span.name === "tools/call alertSweep" && span.parentSpanId === CLIENT_SPAN);
    expect(call, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(attribute(call!, "mcp.protocol.version")).toBe(MODERN);
    const [run] = await arrived((span) => span.name === "tools/call alertSweep" && span.parentSpanId === call!.spanId);
    expect(run, JSON.stringify(spans.map((s) => [s.name, s.parentSpanId]))).toBeDefined();
    expect(run!.kind).toBe(1);
    // The run's request id is its task id's tag: the task id is a bearer secret.
    expect(attribute(run!, "jsonrpc.request.id")).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(spans)).not.toContain(created.result.taskId);
  });

  it("keep secrets out of spans and log lines: a handler error's password and token, a handle in an error and in a resource URI", { timeout: 60_000 }, async () => {
    const session = await openStreamableSession(example.url);
    const traced = (id: number, name: string, args: Record<string, unknown>) =>
      session.post({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: { traceparent: TRACEPARENT } } }).then((r) => r.text());
    await traced(11, "fail", { message: "connect failed: password=hunter2-secret with Authorization: Bearer abcdefgh12345678" });
    const handle = replyOf(await traced(12, "scratch", { text: "kept" })).result.content[0].text as string;
    expect(handle).toMatch(/^[0-9a-f]{32}$/);
    await traced(13, "scratch", { scratch: handle, fail: true });
    const read = await session.post({ jsonrpc: "2.0", id: 14, method: "resources/read", params: { uri: `scratch://${handle}/text`, _meta: { traceparent: TRACEPARENT } } });
    expect(await read.text()).toContain("kept");

    // The span that ran the handler holds its status: the server span in process, the session object's on Workers.
    const [failed] = await arrived((span) => span.name === "tools/call fail" && span.status?.message !== undefined);
    expect(failed?.status?.message).toBe("connect failed: password=[redacted] with Authorization: Bearer [redacted]");
    const [broken] = await arrived((span) => span.name === "tools/call scratch" && attribute(span, "jsonrpc.request.id") === "13" && span.status?.message !== undefined);
    expect(broken?.status?.message).toBe("scratch pad [redacted] is broken");
    // The hop's span and the session object's alike (one span in process).
    const reads = await arrived((span) => span.name === "resources/read", IN_PROCESS ? 1 : 2);
    expect(reads.map((span) => attribute(span, "mcp.resource.uri"))).toEqual(reads.map(() => "scratch://{scratch}/text"));

    const exported = JSON.stringify(spans);
    const logged = example.logs().join("\n");
    for (const secret of ["hunter2-secret", "abcdefgh12345678", handle]) {
      expect(exported).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
    // The failures were logged, only masked.
    expect(logged).toContain("scratch pad [redacted] is broken");
  });

  it("record a request id of 3,000,000 characters cut, in an export of kilobytes", { timeout: 60_000 }, async () => {
    const session = await openStreamableSession(example.url);
    const id = `id-${"x".repeat(3_000_000)}`;
    const response = await session.post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "long id" }, _meta: { traceparent: TRACEPARENT } } });
    await response.arrayBuffer();
    const [span] = await arrived((s) => s.name === "tools/call toUpperCase" && String(attribute(s, "jsonrpc.request.id")).startsWith("id-x"));
    expect(span, "the span of the long id").toBeDefined();
    expect(String(attribute(span!, "jsonrpc.request.id")).length).toBeLessThanOrEqual(128);
    expect(largestExport).toBeLessThan(100_000);
  });

  it("send the operation-duration metric", { timeout: 60_000 }, async () => {
    const deadline = Date.now() + ARRIVAL_MS;
    while (!metricNames.has("mcp.server.operation.duration") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect([...metricNames]).toContain("mcp.server.operation.duration");
  });
});
