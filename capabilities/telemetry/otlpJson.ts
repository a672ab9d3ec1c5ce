/**
 * OTLP/HTTP JSON bodies (opentelemetry-proto, `ExportTraceServiceRequest` and
 * `ExportMetricsServiceRequest` in the protobuf JSON mapping): ids as lower-case hex, times as
 * decimal strings of Unix nanoseconds, enums as numbers. Pure functions; the exporter batches.
 */
import type { Attributes } from "../../shared/telemetry/Telemetry.ts";
import { SCOPE } from "./mcpSpan.ts";

/** OTLP `Span.SpanKind` and `Status.StatusCode` values. */
const KIND = { internal: 1, server: 2 } as const;
const STATUS_ERROR = 2;
/** OTLP `AggregationTemporality`: each export holds what was recorded since the previous one. */
const DELTA = 1;

export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  tracestate?: string;
  name: string;
  kind: keyof typeof KIND;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  links: { traceId: string; spanId: string }[];
  /** The status description; set when the span ended in error. */
  error?: string;
}

export interface HistogramPoint {
  attributes: Attributes;
  count: number;
  sum: number;
  min: number;
  max: number;
  /** One count per bucket: `bounds.length + 1` of them. */
  buckets: number[];
}

export function encodeAttributes(attributes: Attributes): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value: typeof value === "string" ? { stringValue: value } : typeof value === "boolean" ? { boolValue: value } : Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value },
  }));
}

/** An `ExportTraceServiceRequest` of spans already encoded (`encodeSpan`): the exporter keeps them as text, to count their bytes. */
export function tracesBody(resource: Attributes, spans: readonly string[]): string {
  const head = JSON.stringify({ resource: { attributes: encodeAttributes(resource) } }).slice(0, -1);
  return `{"resourceSpans":[${head},"scopeSpans":[{"scope":${JSON.stringify(SCOPE)},"spans":[${spans.join(",")}]}]}]}`;
}

export function metricsBody(resource: Attributes, name: string, bounds: readonly number[], startMs: number, endMs: number, points: readonly HistogramPoint[]): string {
  const start = nanos(startMs);
  const end = nanos(endMs);
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: encodeAttributes(resource) },
        scopeMetrics: [
          {
            scope: SCOPE,
            metrics: [
              {
                name,
                unit: "s",
                description: "MCP request duration as observed on the receiver from the time it was received until the result was sent.",
                histogram: {
                  aggregationTemporality: DELTA,
                  dataPoints: points.map((p) => ({
                    attributes: encodeAttributes(p.attributes),
                    startTimeUnixNano: start,
                    timeUnixNano: end,
                    count: String(p.count),
                    sum: p.sum,
                    min: p.min,
                    max: p.max,
                    bucketCounts: p.buckets.map(String),
                    explicitBounds: bounds,
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  });
}

/** One span as the JSON text of an OTLP `Span`. */
export function encodeSpan(span: FinishedSpan): string {
  const out: Record<string, unknown> = {
    traceId: span.traceId,
    spanId: span.spanId,
    name: span.name,
    kind: KIND[span.kind],
    startTimeUnixNano: nanos(span.startMs),
    endTimeUnixNano: nanos(span.endMs),
    attributes: encodeAttributes(span.attributes),
  };
  if (span.parentSpanId) out.parentSpanId = span.parentSpanId;
  if (span.tracestate) out.traceState = span.tracestate;
  if (span.links.length > 0) out.links = span.links.map(({ traceId, spanId }) => ({ traceId, spanId }));
  if (span.error !== undefined) out.status = { code: STATUS_ERROR, message: span.error };
  return JSON.stringify(out);
}

/** Epoch milliseconds as a decimal string of nanoseconds (exact: no float on the way). */
function nanos(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.round((ms - whole) * 1000);
  return `${whole}${String(micros).padStart(3, "0")}000`;
}
