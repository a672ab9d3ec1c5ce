import { describe, expect, it } from "vitest";
import { REDACTED, redact } from "./redact.ts";

describe("redact", () => {
  it.each([
    ["database password is hunter2", "database password is [redacted]"],
    ["connect failed: password=hunter2; host=db", "connect failed: password=[redacted]; host=db"],
    ['{"apiKey": "sk-live-123456"}', '{"apiKey": "[redacted]"}'],
    ["got Authorization: Bearer abcdefgh12345678", "got Authorization: Bearer [redacted]"],
    ["token eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl leaked", "token [redacted] leaked"],
    ["postgres://app:s3cr3t@db.internal/prod", "postgres://app:[redacted]@db.internal/prod"],
    ["notebook 0123456789abcdef0123456789abcdef is full", "notebook [redacted] is full"],
    ["scratch://0123456789abcdef0123456789abcdef/text", "scratch://[redacted]/text"],
  ])("masks %j", (text, masked) => {
    expect(redact(text)).toBe(masked);
  });

  it("masks the secrets the request knows, wherever they appear", () => {
    const sessionId = "0123456789abcdef0123456789abcdef";
    expect(redact(`session ${sessionId} failed at ${sessionId}`, [sessionId, undefined])).toBe(`session ${REDACTED} failed at ${REDACTED}`);
  });

  it("leaves hex that is not a handle's shape alone: shorter, longer, or upper case", () => {
    const text = "digest 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef, tag 4c9e0b1d2a7f, 0123456789ABCDEF0123456789ABCDEF";
    expect(redact(text)).toBe(text);
  });

  it("leaves ordinary text alone", () => {
    const text = "TypeError: Cannot read properties of undefined (reading 'city')\n    at handler (server.ts:12:3)";
    expect(redact(text)).toBe(text);
  });
});
