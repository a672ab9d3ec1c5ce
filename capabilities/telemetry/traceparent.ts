/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), version 00: the `traceparent` value a
 * client puts in a request's `params._meta` (SEP-414; OpenTelemetry's MCP conventions, "Context
 * propagation") or an HTTP header, read and written. A value that is not exactly a version-00
 * traceparent with non-zero ids is ignored (undefined): a bad context starts a new trace rather
 * than failing the request. Later versions are read by their first four fields, as the
 * recommendation asks.
 *
 * Not here: `tracestate` and `baggage`, which are passed along untouched by whoever exports.
 */
import { randomHex } from "../../shared/bytes/randomHex.ts";

export interface SpanContext {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  spanId: string;
  /** Bit 0: sampled. */
  flags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/** The context a `traceparent` names, or undefined for anything malformed (a new trace is started instead). */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== "string" || value.length > 256) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  // Version ff is forbidden; version 00 has exactly four fields.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId: traceId!, spanId: spanId!, flags: parseInt(flags!, 16) };
}

export function formatTraceparent({ traceId, spanId, flags }: SpanContext): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, "0")}`;
}

export function newTraceId(): string {
  return randomHex(16);
}

export function newSpanId(): string {
  return randomHex(8);
}
