/**
 * `otlp()`: traces and metrics, listed in a definition's `use`. Request spans and the
 * `mcp.server.operation.duration` metric (OpenTelemetry MCP conventions) are exported over
 * OTLP/HTTP JSON to the `OTEL_EXPORTER_OTLP_*` endpoint, and nothing is while none is set. On Deno,
 * `OTEL_DENO=true` uses Deno's built-in OpenTelemetry instead (`deno/denoTelemetry.ts`). Without a
 * telemetry capability in the list nothing is traced, and none of this code is shipped.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";
import { otlpTelemetry } from "./OtlpTelemetry.ts";

/** @example defineServer({ …, use: [otlp()], onError: (error, { traceId }) => report(error, traceId) }) */
export function otlp(): Extension {
  return { id: "otlp", telemetry: otlpTelemetry };
}
