import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Logger } from "../../shared/log/Logger.ts";
import { MAX_BUFFERED_SPAN_BYTES, MAX_BUFFERED_SPANS, MAX_SERIES, OtlpTelemetry, otlpTelemetry } from "./OtlpTelemetry.ts";
import { MAX_SPAN_NAME_CHARS, MAX_SPAN_STATUS_CHARS, MAX_SPAN_URI_CHARS } from "./mcpSpan.ts";
import type { OtlpConfig } from "./readOtlpConfig.ts";

/** A real OTLP/HTTP receiver on loopback: every body it was sent, by path. */
let receiver: Server;
let base = "";
const received: { path: string; body: any; headers: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")), headers: request.headers });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => {
  receiver.closeAllConnections();
  return new Promise<void>((resolve) => receiver.close(() => resolve()));
});
beforeEach(() => void received.splice(0));

const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const call = (name = "echo", meta: Record<string, unknown> = { traceparent: TRACEPARENT, tracestate: "rojo=1" }) => ({ jsonrpc: "2.0" as const, id: 7, method: "tools/call", params: { name, arguments: {}, _meta: meta } });

function telemetry(overrides: Partial<OtlpConfig> = {}, lines: string[] = [], templateOf?: (uri: string) => string | undefined): OtlpTelemetry {
  const config: OtlpConfig = {
    tracesUrl: `${base}/v1/traces`,
    metricsUrl: `${base}/v1/metrics`,
    tracesHeaders: { "x-team": "mcp" },
    metricsHeaders: {},
    resource: { "service.name": "test" },
    sampler: { ratio: 1, parentBased: true },
    timeoutMs: 5_000,
    ...overrides,
  };
  return new OtlpTelemetry(config, new Logger("debug", {}, (line) => void lines.push(line)), undefined, templateOf);
}

const attribute = (span: any, key: string) => span.attributes.find((a: any) => a.key === key)?.value;

describe("OtlpTelemetry", () => {
  it("exports a tool call's server span under the client's context, named and attributed per the MCP conventions", async () => {
    const t = telemetry();
    const span = t.request(call(), { protocolVersion: "2025-11-25", sessionTag: "4c9e0b1d2a7f", transport: "tcp", protocol: "http", clientAddress: "203.0.113.9" });
    expect(span.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    span.end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [], isError: true } }, failure: { name: "Error", message: "boom" } });
    await t.flush();

    const traces = received.find((r) => r.path === "/v1/traces")!;
    expect(traces.headers["x-team"]).toBe("mcp");
    const [exported] = traces.body.resourceSpans[0].scopeSpans[0].spans;
    expect(exported).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanId: "00f067aa0ba902b7", name: "tools/call echo", kind: 2, traceState: "rojo=1", status: { code: 2, message: "boom" } });
    expect(exported.spanId).toBe(span.traceparent.slice(36, 52));
    expect(attribute(exported, "mcp.method.name")).toEqual({ stringValue: "tools/call" });
    expect(attribute(exported, "gen_ai.tool.name")).toEqual({ stringValue: "echo" });
    expect(attribute(exported, "gen_ai.operation.name")).toEqual({ stringValue: "execute_tool" });
    expect(attribute(exported, "jsonrpc.request.id")).toEqual({ stringValue: "7" });
    expect(attribute(exported, "mcp.protocol.version")).toEqual({ stringValue: "2025-11-25" });
    expect(attribute(exported, "mcp.session.id")).toEqual({ stringValue: "4c9e0b1d2a7f" });
    expect(attribute(exported, "error.type")).toEqual({ stringValue: "tool_error" });
    expect(attribute(exported, "network.transport")).toEqual({ stringValue: "tcp" });
    expect(attribute(exported, "client.address")).toEqual({ stringValue: "203.0.113.9" });
    expect(BigInt(exported.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(exported.startTimeUnixNano));

    const metrics = received.find((r) => r.path === "/v1/metrics")!;
    const [metric] = metrics.body.resourceMetrics[0].scopeMetrics[0].metrics;
    expect(metric).toMatchObject({ name: "mcp.server.operation.duration", unit: "s", histogram: { aggregationTemporality: 1 } });
    const [point] = metric.histogram.dataPoints;
    expect(point.count).toBe("1");
    expect(point.explicitBounds).toHaveLength(14);
    expect(point.bucketCounts.reduce((sum: number, n: string) => sum + Number(n), 0)).toBe(1);
    // No ids or addresses in the metric: they would make a series per request.
    expect(point.attributes.map((a: any) => a.key).sort()).toEqual(["error.type", "gen_ai.operation.name", "gen_ai.tool.name", "mcp.method.name", "mcp.protocol.version", "network.protocol.name", "network.transport"]);
  });

  it("makes a hop's span the parent of an internal span, and links the client's context and the transport's", async () => {
    const t = telemetry();
    const hop = "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01";
    const http = "00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-2222222222222222-01";
    t.request(call(), { transport: "tcp", parent: hop, link: http }).end({ reply: { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Unknown tool" } } });
    await t.flush();
    const [exported] = received.find((r) => r.path === "/v1/traces")!.body.resourceSpans[0].scopeSpans[0].spans;
    expect(exported).toMatchObject({ parentSpanId: "1111111111111111", kind: 1, status: { code: 2, message: "Unknown tool" } });
    expect(exported.links).toEqual([
      { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" },
      { traceId: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", spanId: "2222222222222222" },
    ]);
    expect(attribute(exported, "error.type")).toEqual({ stringValue: "-32602" });
  });

  it("starts a new trace for a request without a context, and keeps a client's unsampled trace unsampled", async () => {
    const t = telemetry();
    const fresh = t.request(call("echo", {}), { transport: "pipe" });
    expect(fresh.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    fresh.end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [] } } });
    const unsampled = t.request(call("echo", { traceparent: TRACEPARENT.replace(/01$/, "00") }), { transport: "tcp" });
    expect(unsampled.traceparent.endsWith("-00")).toBe(true);
    unsampled.end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [] } } });
    await t.flush();
    const spans = received.find((r) => r.path === "/v1/traces")!.body.resourceSpans[0].scopeSpans[0].spans;
    expect(spans).toHaveLength(1);
    expect(spans[0].parentSpanId).toBeUndefined();
    // Both count in the metric (one series per transport).
    const points = received.find((r) => r.path === "/v1/metrics")!.body.resourceMetrics[0].scopeMetrics[0].metrics[0].histogram.dataPoints;
    expect(points.reduce((sum: number, p: any) => sum + Number(p.count), 0)).toBe(2);
  });

  it("holds at most MAX_BUFFERED_SPANS spans and MAX_SERIES series between exports, and says what it dropped", async () => {
    const lines: string[] = [];
    const t = telemetry({}, lines);
    for (let i = 0; i < MAX_BUFFERED_SPANS + 50; i++) t.request(call(`tool${i}`), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [] } } });
    await t.flush();
    const spans = received.find((r) => r.path === "/v1/traces")!.body.resourceSpans[0].scopeSpans[0].spans;
    expect(spans).toHaveLength(MAX_BUFFERED_SPANS);
    const points = received.find((r) => r.path === "/v1/metrics")!.body.resourceMetrics[0].scopeMetrics[0].metrics[0].histogram.dataPoints;
    expect(points).toHaveLength(MAX_SERIES + 1);
    const overflow = points.find((p: any) => p.attributes.some((a: any) => a.key === "otel.metric.overflow"));
    expect(Number(overflow.count)).toBe(MAX_BUFFERED_SPANS + 50 - MAX_SERIES);
    expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ event: "telemetry.dropped", spans: 50 }));
    // Exported means released: the next export sends nothing.
    received.splice(0);
    await t.flush();
    expect(received).toEqual([]);
  });

  it("redacts a span's status as the logs are: a password, a bearer token and a handle in a handler's error", async () => {
    const t = telemetry();
    const handle = "0123456789abcdef0123456789abcdef";
    const message = `pad ${handle}: password=hunter2 sent with Bearer abcdefgh12345678`;
    t.request(call(), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [], isError: true } }, failure: { name: "Error", message } });
    t.request(call(), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 8, error: { code: -32603, message } } });
    await t.flush();
    const spans = received.find((r) => r.path === "/v1/traces")!.body.resourceSpans[0].scopeSpans[0].spans;
    expect(spans.map((span: any) => span.status.message)).toEqual(Array(2).fill("pad [redacted]: password=[redacted] sent with Bearer [redacted]"));
  });

  it("records a resource URI naming a handle as its template, and any other URI redacted and cut", async () => {
    const handle = "0123456789abcdef0123456789abcdef";
    const t = telemetry({}, [], (uri) => (uri.startsWith("pad://") ? "pad://{pad}" : undefined));
    const read = (uri: string) => ({ jsonrpc: "2.0" as const, id: 1, method: "resources/read", params: { uri, _meta: { traceparent: TRACEPARENT } } });
    for (const uri of [`pad://${handle}`, `other://${handle}/x`, `other://${"u".repeat(5_000)}`]) t.request(read(uri), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 1, result: { contents: [] } } });
    await t.flush();
    const spans = received.find((r) => r.path === "/v1/traces")!.body.resourceSpans[0].scopeSpans[0].spans;
    expect(spans.map((span: any) => attribute(span, "mcp.resource.uri").stringValue)).toEqual(["pad://{pad}", "other://[redacted]/x", `other://${"u".repeat(MAX_SPAN_URI_CHARS - 8)}`]);
  });

  it("cuts a request id, a method and a status of megabytes to their bounds", async () => {
    const t = telemetry();
    const long = "x".repeat(3_000_000);
    t.request({ jsonrpc: "2.0", id: long, method: long, params: {} }, { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: long, error: { code: -32601, message: long } } });
    await t.flush();
    const traces = received.find((r) => r.path === "/v1/traces")!;
    const [exported] = traces.body.resourceSpans[0].scopeSpans[0].spans;
    expect(attribute(exported, "jsonrpc.request.id").stringValue).toBe("x".repeat(MAX_SPAN_NAME_CHARS));
    expect(exported.name).toBe("x".repeat(MAX_SPAN_NAME_CHARS));
    expect(exported.status.message).toHaveLength(MAX_SPAN_STATUS_CHARS);
    expect(JSON.stringify(traces.body).length).toBeLessThan(4_096);
  });

  it("holds at most MAX_BUFFERED_SPAN_BYTES of spans between exports, and says once how many it dropped", async () => {
    const lines: string[] = [];
    const t = telemetry({}, lines);
    // Each span as large as its bounds let a client make it: its name, id, URI and status long.
    const big = (i: number) => ({ jsonrpc: "2.0" as const, id: `${i}-${"i".repeat(200)}`, method: `resources/read${"m".repeat(200)}`, params: { uri: `x://${"u".repeat(2_000)}`, _meta: { traceparent: TRACEPARENT, tracestate: "t".repeat(600) } } });
    const sent = 1_000;
    for (let i = 0; i < sent; i++) t.request(big(i), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: i, error: { code: -32603, message: "e".repeat(2_000) } } });
    await t.flush();
    const traces = received.filter((r) => r.path === "/v1/traces");
    expect(traces).toHaveLength(1);
    const bytes = Buffer.byteLength(JSON.stringify(traces[0]!.body));
    expect(bytes).toBeLessThanOrEqual(MAX_BUFFERED_SPAN_BYTES + 1_024);
    const exported = traces[0]!.body.resourceSpans[0].scopeSpans[0].spans.length;
    expect(exported).toBeLessThan(sent);
    const dropped = lines.map((l) => JSON.parse(l)).filter((l) => l.event === "telemetry.dropped");
    expect(dropped).toEqual([expect.objectContaining({ spans: sent - exported, limitBytes: MAX_BUFFERED_SPAN_BYTES })]);
    // Exported means released: room again for the next export.
    received.splice(0);
    t.request(big(0), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 0, result: {} } });
    await t.flush();
    expect(received.find((r) => r.path === "/v1/traces")!.body.resourceSpans[0].scopeSpans[0].spans).toHaveLength(1);
  });

  it("logs an export the collector refuses, and keeps nothing of it", async () => {
    const lines: string[] = [];
    const t = telemetry({ tracesUrl: `${base.replace(/:\d+$/, ":9")}/v1/traces`, metricsUrl: undefined }, lines);
    t.request(call(), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [] } } });
    await t.flush();
    expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ level: "warning", event: "telemetry.export-failed", what: "traces" }));
  });

  it("exports by itself once spans end, through keepAlive where the runtime gives one", async () => {
    const kept: Promise<unknown>[] = [];
    const t = otlpTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: base, OTEL_SERVICE_NAME: "weather" }, { serviceName: "test", logger: new Logger("error"), keepAlive: (work) => void kept.push(work) })!;
    t.request(call(), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 7, result: { content: [] } } });
    t.request(call(), { transport: "tcp" }).end({ reply: { jsonrpc: "2.0", id: 8, result: { content: [] } } });
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    const traces = received.find((r) => r.path === "/v1/traces")!;
    expect(traces.body.resourceSpans[0].resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "weather" } });
    expect(traces.body.resourceSpans[0].scopeSpans[0].spans).toHaveLength(2);
    expect(otlpTelemetry({}, { serviceName: "test", logger: new Logger("error") })).toBeUndefined();
  });
});
