/**
 * The OTLP exporter's configuration from the standard OpenTelemetry environment variables
 * (OpenTelemetry specification, "Environment Variable Specification" and "OTLP Exporter
 * Configuration"), read from a Worker's `[vars]`/secrets or the process environment. Tracing is
 * off (undefined) unless an endpoint is set; a variable that is set but malformed fails loudly
 * with its name, like every other setting (`readConfig`).
 *
 * Only `http/json` is spoken: the protobuf encoding would need a dependency many times the size of
 * this exporter. A protocol set to anything else is refused rather than silently sent as JSON.
 */
export interface OtlpConfig {
  /** Where spans go (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`); undefined: none. */
  tracesUrl?: string;
  /** Where the duration metric goes (…`_METRICS_ENDPOINT`, or the base + `/v1/metrics`); undefined: none. */
  metricsUrl?: string;
  tracesHeaders: Record<string, string>;
  metricsHeaders: Record<string, string>;
  /** `service.name` and `OTEL_RESOURCE_ATTRIBUTES`. */
  resource: Record<string, string>;
  /** Fraction of new traces sampled (1 = all); `parentBased`: a client's sampled flag decides for its own traces. */
  sampler: { ratio: number; parentBased: boolean };
  /** One export's time limit (`OTEL_EXPORTER_OTLP_TIMEOUT`, ms). */
  timeoutMs: number;
}

/** Default `OTEL_EXPORTER_OTLP_TIMEOUT`: 10 s, the specification's. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 10_000;
const SAMPLERS = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"];

type Env = Record<string, unknown>;

/** @throws RangeError naming the variable, for a malformed value. */
export function readOtlpConfig(env: Env, defaultServiceName: string): OtlpConfig | undefined {
  const read = (name: string): string | undefined => {
    const value = env[name];
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  if (read("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const base = read("OTEL_EXPORTER_OTLP_ENDPOINT");
  const endpoint = (signal: "TRACES" | "METRICS", path: string): string | undefined => {
    if (read(`OTEL_${signal}_EXPORTER`) === "none") return undefined;
    const own = read(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`);
    if (own) return httpUrl(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`, own);
    return base ? httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", `${base.replace(/\/+$/, "")}${path}`) : undefined;
  };
  const tracesUrl = endpoint("TRACES", "/v1/traces");
  const metricsUrl = endpoint("METRICS", "/v1/metrics");
  if (!tracesUrl && !metricsUrl) return undefined;
  for (const name of ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"]) {
    const protocol = read(name);
    if (protocol !== undefined && protocol !== "http/json") throw new RangeError(`${name} must be http/json, the only OTLP encoding this server sends; got ${JSON.stringify(protocol)}`);
  }
  const headers = pairs("OTEL_EXPORTER_OTLP_HEADERS", read("OTEL_EXPORTER_OTLP_HEADERS"));
  const resource = { "service.name": defaultServiceName, ...pairs("OTEL_RESOURCE_ATTRIBUTES", read("OTEL_RESOURCE_ATTRIBUTES")) };
  const serviceName = read("OTEL_SERVICE_NAME");
  if (serviceName) resource["service.name"] = serviceName;
  return {
    tracesUrl,
    metricsUrl,
    tracesHeaders: { ...headers, ...pairs("OTEL_EXPORTER_OTLP_TRACES_HEADERS", read("OTEL_EXPORTER_OTLP_TRACES_HEADERS")) },
    metricsHeaders: { ...headers, ...pairs("OTEL_EXPORTER_OTLP_METRICS_HEADERS", read("OTEL_EXPORTER_OTLP_METRICS_HEADERS")) },
    resource,
    sampler: sampler(read("OTEL_TRACES_SAMPLER"), read("OTEL_TRACES_SAMPLER_ARG")),
    timeoutMs: timeout(read("OTEL_EXPORTER_OTLP_TIMEOUT")),
  };
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(`${name} must be an http(s) URL; got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RangeError(`${name} must be an http(s) URL; got ${JSON.stringify(value)}`);
  return url.href;
}

/** `key=value,key2=value2`, each part percent-decoded (W3C Baggage's format, as the specification says). */
function pairs(name: string, value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  for (const part of value.split(",")) {
    const at = part.indexOf("=");
    const key = at > 0 ? decode(name, part.slice(0, at).trim()) : "";
    if (key === "") throw new RangeError(`${name} must be a list of key=value pairs separated by commas; got ${JSON.stringify(part)}`);
    out[key] = decode(name, part.slice(at + 1).trim());
  }
  return out;
}

function decode(name: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RangeError(`${name} has a malformed percent-encoding in ${JSON.stringify(text)}`);
  }
}

function sampler(name = "parentbased_always_on", arg: string | undefined): OtlpConfig["sampler"] {
  if (!SAMPLERS.includes(name)) throw new RangeError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}; got ${JSON.stringify(name)}`);
  let ratio = name.endsWith("always_off") ? 0 : 1;
  if (name.endsWith("traceidratio") && arg !== undefined) {
    ratio = Number(arg);
    if (!(ratio >= 0 && ratio <= 1)) throw new RangeError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1; got ${JSON.stringify(arg)}`);
  }
  return { ratio, parentBased: name.startsWith("parentbased_") };
}

function timeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_EXPORT_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0 || ms > 600_000) throw new RangeError(`OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds from 1 to 600000; got ${JSON.stringify(value)}`);
  return ms;
}
