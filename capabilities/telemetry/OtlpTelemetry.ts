/**
 * Request spans and the duration metric, exported over OTLP/HTTP JSON with `fetch`: the backend for
 * Workers and for any runtime without an OpenTelemetry SDK of its own. `otlpTelemetry`, which
 * `otlp()` brings, makes one from the `OTEL_*` variables (off without them).
 *
 * Exports are batched by time: the first span or point recorded after an export schedules the
 * next. On Workers it runs as soon as the request's own work is done, inside `waitUntil` (the
 * runtime's `keepAlive`), since an isolate may go away after the request; elsewhere after
 * EXPORT_DELAY_MS, gathering what arrives meanwhile into one request.
 *
 * Bounded, per isolate: at most MAX_BUFFERED_SPANS finished spans, and MAX_BUFFERED_SPAN_BYTES of
 * them as exported, wait for an export (newer ones are dropped and counted, the count logged once
 * at the next export; each span's client-chosen strings are cut first, `mcpSpan.ts`), and at most MAX_SERIES metric
 * series (attribute sets) are kept between exports; further ones are folded into one series with
 * `otel.metric.overflow: true`, as the OpenTelemetry metrics SDK does past its cardinality limit.
 * An export that fails is logged and dropped, never retried: tracing must not hold memory or
 * retry storms against a collector that is down.
 *
 * Sampling follows `OTEL_TRACES_SAMPLER`: a trace the client sampled (or not) stays so under the
 * parent-based samplers; new traces are kept at the configured ratio, decided by the trace id.
 * Unsampled requests still count in the metric and still pass a (non-sampled) context on.
 */
import type { Logger } from "../../shared/log/Logger.ts";
import type { JsonRpcRequest } from "../../shared/jsonrpc/messages.ts";
import { encodeSpan, type HistogramPoint, metricsBody, tracesBody } from "./otlpJson.ts";
import { utf8Length } from "../../shared/bytes/utf8Length.ts";
import { DURATION_BUCKETS_S, metricAttributes, OPERATION_DURATION, spanEnd, spanStart } from "./mcpSpan.ts";
import { type OtlpConfig, readOtlpConfig } from "./readOtlpConfig.ts";
import type { Attributes, HandleTemplateOf, RequestEnd, RequestOrigin, RequestSpan, Telemetry, TelemetryFactory } from "../../shared/telemetry/Telemetry.ts";
import { formatTraceparent, newSpanId, newTraceId } from "./traceparent.ts";

/** How long a process that lives on gathers spans before it exports them. */
export const EXPORT_DELAY_MS = 1_000;
/** Finished spans held for the next export, per isolate or process. */
export const MAX_BUFFERED_SPANS = 1_024;
/** Bytes of finished spans (their OTLP JSON, UTF-8) held for the next export, per isolate or process: the most one export sends. */
export const MAX_BUFFERED_SPAN_BYTES = 1_048_576;
/** Distinct metric attribute sets held between exports. */
export const MAX_SERIES = 256;
const OVERFLOW_KEY = "otel.metric.overflow";

export class OtlpTelemetry implements Telemetry {
  readonly #config: OtlpConfig;
  readonly #log: Logger;
  /** Each finished span as its OTLP JSON, and their UTF-8 bytes together. */
  #spans: string[] = [];
  #spanBytes = 0;
  #dropped = 0;
  readonly #templateOf: HandleTemplateOf | undefined;
  #series = new Map<string, HistogramPoint>();
  #windowStartMs = Date.now();
  readonly #keepAlive: ((work: Promise<unknown>) => void) | undefined;
  #scheduled = false;

  constructor(config: OtlpConfig, log: Logger, keepAlive?: (work: Promise<unknown>) => void, templateOf?: HandleTemplateOf) {
    this.#config = config;
    this.#log = log;
    this.#keepAlive = keepAlive;
    this.#templateOf = templateOf;
  }

  request(request: JsonRpcRequest, origin: RequestOrigin): RequestSpan {
    const start = spanStart(request, origin, this.#templateOf);
    const traceId = start.parent?.traceId ?? newTraceId();
    const sampled = this.#sampled(traceId, start.parent?.flags);
    const spanId = newSpanId();
    const startMs = Date.now();
    return {
      traceparent: formatTraceparent({ traceId, spanId, flags: sampled ? 1 : 0 }),
      end: (outcome: RequestEnd) => {
        const endMs = Date.now();
        const ended = spanEnd(outcome);
        const attributes = { ...start.attributes, ...ended.attributes };
        this.#record(metricAttributes(attributes), (endMs - startMs) / 1000);
        this.#schedule();
        if (!sampled || !this.#config.tracesUrl) return;
        if (this.#spans.length >= MAX_BUFFERED_SPANS) {
          this.#dropped++;
          return;
        }
        const json = encodeSpan({ traceId, spanId, parentSpanId: start.parent?.spanId, tracestate: start.tracestate, name: start.name, kind: start.kind, startMs, endMs, attributes, links: start.links, error: ended.error });
        const bytes = utf8Length(json);
        if (this.#spanBytes + bytes > MAX_BUFFERED_SPAN_BYTES) {
          this.#dropped++;
          return;
        }
        this.#spans.push(json);
        this.#spanBytes += bytes;
      },
    };
  }

  async flush(): Promise<void> {
    const { tracesUrl, metricsUrl } = this.#config;
    const sends: Promise<void>[] = [];
    if (tracesUrl && this.#spans.length > 0) {
      const spans = this.#spans;
      this.#spans = [];
      this.#spanBytes = 0;
      sends.push(this.#send(tracesUrl, this.#config.tracesHeaders, tracesBody(this.#config.resource, spans), "traces"));
    }
    if (this.#dropped > 0) {
      this.#log.warn("telemetry.dropped", { spans: this.#dropped, limit: MAX_BUFFERED_SPANS, limitBytes: MAX_BUFFERED_SPAN_BYTES });
      this.#dropped = 0;
    }
    if (metricsUrl && this.#series.size > 0) {
      const points = [...this.#series.values()];
      const startMs = this.#windowStartMs;
      this.#series = new Map();
      this.#windowStartMs = Date.now();
      sends.push(this.#send(metricsUrl, this.#config.metricsHeaders, metricsBody(this.#config.resource, OPERATION_DURATION, DURATION_BUCKETS_S, startMs, this.#windowStartMs, points), "metrics"));
    }
    await Promise.all(sends);
  }

  /** Arranges the next export, once (see the module header). */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const delay = this.#keepAlive ? 0 : EXPORT_DELAY_MS;
    const run = new Promise((resolve) => setTimeout(resolve, delay)).then(() => {
      this.#scheduled = false;
      return this.flush();
    });
    if (this.#keepAlive) this.#keepAlive(run);
    else void run;
  }

  #sampled(traceId: string, parentFlags: number | undefined): boolean {
    const { ratio, parentBased } = this.#config.sampler;
    if (parentBased && parentFlags !== undefined) return (parentFlags & 1) === 1;
    if (ratio >= 1) return true;
    if (ratio <= 0) return false;
    // The trace id's last 56 bits as a fraction: the same decision for the same trace everywhere.
    return parseInt(traceId.slice(-14), 16) / 2 ** 56 < ratio;
  }

  #record(attributes: Attributes, seconds: number): void {
    let key = JSON.stringify(attributes);
    let point = this.#series.get(key);
    if (!point && this.#series.size >= MAX_SERIES) {
      attributes = { [OVERFLOW_KEY]: true };
      key = JSON.stringify(attributes);
      point = this.#series.get(key);
    }
    if (!point) {
      point = { attributes, count: 0, sum: 0, min: seconds, max: seconds, buckets: new Array(DURATION_BUCKETS_S.length + 1).fill(0) };
      this.#series.set(key, point);
    }
    point.count++;
    point.sum += seconds;
    point.min = Math.min(point.min, seconds);
    point.max = Math.max(point.max, seconds);
    let bucket = DURATION_BUCKETS_S.findIndex((bound) => seconds <= bound);
    if (bucket < 0) bucket = DURATION_BUCKETS_S.length;
    point.buckets[bucket]!++;
  }

  async #send(url: string, headers: Record<string, string>, body: string, what: string): Promise<void> {
    try {
      const response = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body, signal: AbortSignal.timeout(this.#config.timeoutMs) });
      // Read to the end, so the runtime can reuse the connection; the body is not needed.
      await response.arrayBuffer();
      if (!response.ok) this.#log.warn("telemetry.export-failed", { what, url, status: response.status });
    } catch (error) {
      this.#log.warn("telemetry.export-failed", { what, url, message: String(error) });
    }
  }
}

/**
 * What `otlp()` brings: an export over OTLP/HTTP JSON when an `OTEL_EXPORTER_OTLP_*` endpoint is
 * set (see `readOtlpConfig`), and none otherwise.
 */
export const otlpTelemetry: TelemetryFactory = (env, { serviceName, logger, keepAlive, handleTemplateOf }) => {
  const config = readOtlpConfig(env, serviceName);
  return config && new OtlpTelemetry(config, logger, keepAlive, handleTemplateOf);
};
