import { describe, expect, it } from "vitest";
import { DEFAULT_EXPORT_TIMEOUT_MS, readOtlpConfig } from "./readOtlpConfig.ts";

describe("readOtlpConfig", () => {
  it("is off without an endpoint, and when the SDK is disabled", () => {
    expect(readOtlpConfig({}, "svc")).toBeUndefined();
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }, "svc")).toBeUndefined();
  });

  it("derives both signal URLs from the base endpoint, with the standard paths", () => {
    const config = readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example/otlp/" }, "svc")!;
    expect(config.tracesUrl).toBe("https://collector.example/otlp/v1/traces");
    expect(config.metricsUrl).toBe("https://collector.example/otlp/v1/metrics");
    expect(config.timeoutMs).toBe(DEFAULT_EXPORT_TIMEOUT_MS);
    expect(config.sampler).toEqual({ ratio: 1, parentBased: true });
    expect(config.resource).toEqual({ "service.name": "svc" });
  });

  it("takes a signal's own endpoint as it is, and turns a signal off with its exporter set to none", () => {
    const config = readOtlpConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9/t", OTEL_METRICS_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, "svc")!;
    expect(config.tracesUrl).toBe("http://127.0.0.1:9/t");
    expect(config.metricsUrl).toBeUndefined();
  });

  it("reads headers, resource attributes, the service name and the sampler", () => {
    const config = readOtlpConfig(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-team=mcp",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=traces",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod",
        OTEL_SERVICE_NAME: "weather",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25",
      },
      "svc",
    )!;
    expect(config.tracesHeaders).toEqual({ authorization: "Bearer abc", "x-team": "traces" });
    expect(config.metricsHeaders).toEqual({ authorization: "Bearer abc", "x-team": "mcp" });
    expect(config.resource).toEqual({ "service.name": "weather", "deployment.environment": "prod" });
    expect(config.sampler).toEqual({ ratio: 0.25, parentBased: true });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }, /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/json/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }, /OTEL_EXPORTER_OTLP_HEADERS must be a list of key=value/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_SAMPLER: "sometimes" }, /OTEL_TRACES_SAMPLER must be one of/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_EXPORTER_OTLP_TIMEOUT: "soon" }, /OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number/],
  ])("refuses a malformed setting with its name: %o", (env, message) => {
    expect(() => readOtlpConfig(env, "svc")).toThrow(message);
  });
});
