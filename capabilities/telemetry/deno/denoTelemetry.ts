/**
 * Request spans through Deno's built-in OpenTelemetry (`OTEL_DENO=true`): Deno exports them, with
 * its own `Deno.serve` and `fetch` spans and the console's log records, to the collector named by
 * the standard `OTEL_EXPORTER_OTLP_*` variables, batched by its SDK. No `@opentelemetry/api`
 * package is needed: `Deno.telemetry`'s tracer and meter providers are used directly, with a
 * context holding the remote parent under the key OpenTelemetry's JavaScript API uses
 * (`Symbol.for("OpenTelemetry Context Key SPAN")`), which Deno reads.
 *
 * Names and attributes are those of every backend (`mcpSpan.ts`). Undefined (off) unless Deno was
 * started with `OTEL_DENO=true`; the definition's own `telemetry` option is used then.
 */
import { DURATION_BUCKETS_S, metricAttributes, OPERATION_DURATION, SCOPE, spanEnd, spanStart } from "../mcpSpan.ts";
import type { Attributes, HandleTemplateOf, RequestEnd, RequestOrigin, RequestSpan, Telemetry } from "../../../shared/telemetry/Telemetry.ts";
import type { JsonRpcRequest } from "../../../shared/jsonrpc/messages.ts";
import { formatTraceparent, type SpanContext } from "../traceparent.ts";

/** The slice of OpenTelemetry's JavaScript API that Deno's providers implement and this file uses. */
interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: unknown;
}
interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttributes(attributes: Attributes): void;
  setStatus(status: { code: number; message?: string }): void;
  end(): void;
}
interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}
interface DenoOtel {
  tracerProvider: { getTracer(name: string, version?: string): { startSpan(name: string, options: object, context?: OtelContext): OtelSpan } };
  meterProvider: { getMeter(name: string, version?: string): { createHistogram(name: string, options: object): { record(value: number, attributes: Attributes): void } } };
}

const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
/** OpenTelemetry API `SpanKind` and `SpanStatusCode`. */
const KIND = { internal: 0, server: 1 } as const;
const STATUS_ERROR = 2;

/** An immutable context, as OpenTelemetry's API defines one: only the remote parent is ever put in it. */
class ParentContext implements OtelContext {
  readonly #values: Map<symbol, unknown>;
  constructor(values = new Map<symbol, unknown>()) {
    this.#values = values;
  }
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }
  setValue(key: symbol, value: unknown): OtelContext {
    return new ParentContext(new Map(this.#values).set(key, value));
  }
  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new ParentContext(values);
  }
}

function contextOf(parent: SpanContext): OtelContext {
  const remote: OtelSpanContext = { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags, isRemote: true };
  // A non-recording span that only carries the parent's context, as `trace.wrapSpanContext` makes.
  const span = { spanContext: () => remote, isRecording: () => false };
  return new ParentContext().setValue(SPAN_KEY, span);
}

/** `templateOf`: the definition's `handleTemplateOf`, so resource URIs naming a handle are recorded as on every backend. */
export function denoTelemetry(env: Record<string, string | undefined>, templateOf?: HandleTemplateOf): Telemetry | undefined {
  const otel = (Deno as unknown as { telemetry?: DenoOtel }).telemetry;
  if (env.OTEL_DENO !== "true" || !otel) return undefined;
  const tracer = otel.tracerProvider.getTracer(SCOPE.name, SCOPE.version);
  const duration = otel.meterProvider.getMeter(SCOPE.name, SCOPE.version).createHistogram(OPERATION_DURATION, {
    unit: "s",
    description: "MCP request duration as observed on the receiver from the time it was received until the result was sent.",
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] },
  });
  return {
    request(request: JsonRpcRequest, origin: RequestOrigin): RequestSpan {
      const start = spanStart(request, origin, templateOf);
      const links = start.links.map((c) => ({ context: { traceId: c.traceId, spanId: c.spanId, traceFlags: c.flags, isRemote: true } }));
      const span = tracer.startSpan(start.name, { kind: KIND[start.kind], attributes: start.attributes, links }, start.parent && contextOf(start.parent));
      const startMs = Date.now();
      const own = span.spanContext();
      return {
        traceparent: formatTraceparent({ traceId: own.traceId, spanId: own.spanId, flags: own.traceFlags }),
        end(outcome: RequestEnd) {
          const ended = spanEnd(outcome);
          span.setAttributes(ended.attributes);
          if (ended.error !== undefined) span.setStatus({ code: STATUS_ERROR, message: ended.error });
          span.end();
          duration.record((Date.now() - startMs) / 1000, metricAttributes({ ...start.attributes, ...ended.attributes }));
        },
      };
    },
    // Deno's SDK batches and exports on its own schedule, and at exit.
    flush: () => Promise.resolve(),
  };
}
