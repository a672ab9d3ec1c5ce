import { describe, it, expect } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import type { Checked } from "../errors/Checked.ts";
import { decodeUtf8, readBodyBytes } from "./readBody.ts";

/** The body as text, as a route reads it: its bytes within the limit, then strict UTF-8. */
async function readBody(request: Request, maxBytes: number): Promise<Checked<string>> {
  const bytes = await readBodyBytes(request, maxBytes);
  return bytes.ok ? decodeUtf8(bytes.value) : bytes;
}

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  // `duplex` is required by Node (undici) for a stream body; it is not in the DOM RequestInit type.
  return new Request("http://x", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

/** A body stream that yields `chunks` on demand and records whether it was cancelled. */
function source(chunks: Uint8Array[]) {
  const seen = { pulls: 0, cancelled: false, reason: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[seen.pulls++];
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
      cancel(reason) {
        seen.cancelled = true;
        seen.reason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

describe("readBody", () => {
  it("reads a body as text", async () => {
    expect(await readBody(post('{"jsonrpc":"2.0"}'), 100)).toEqual({ ok: true, value: '{"jsonrpc":"2.0"}' });
  });

  it("reads a body of exactly the limit", async () => {
    expect(await readBody(post("x".repeat(16)), 16)).toEqual({ ok: true, value: "x".repeat(16) });
  });

  it("reads a missing body as empty text", async () => {
    expect(await readBody(new Request("http://x", { method: "POST" }), 100)).toEqual({ ok: true, value: "" });
  });

  it("decodes multi-byte UTF-8 split across chunks", async () => {
    const euro = new TextEncoder().encode("€"); // 3 bytes
    const { stream } = source([euro.slice(0, 1), euro.slice(1)]);
    expect(await readBody(post(stream), 100)).toEqual({ ok: true, value: "€" });
  });

  it("refuses a declared Content-Length over the limit with 413, before reading", async () => {
    const request = post("small", { "content-length": "1000" });
    const result = await readBody(request, 999);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.status).toBe(413);
      expect(result.error.code).toBe(ErrorCode.InvalidRequest);
      expect(result.error.message).toContain("999 bytes");
    }
    expect(request.bodyUsed).toBe(false);
  });

  it("refuses a streamed body over the limit with 413 and cancels the stream", async () => {
    const { stream, seen } = source([new Uint8Array(10), new Uint8Array(10), new Uint8Array(10), new Uint8Array(10)]);
    const result = await readBody(post(stream), 25);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.status).toBe(413);
    expect(seen.cancelled).toBe(true);
    // Cut off at the chunk that crossed the limit, not read to the end.
    expect(seen.pulls).toBe(3);
  });

  it("refuses a body that lies about its length (declares less than it sends)", async () => {
    // Only a Request made in code can lie: on the wire the HTTP framing ends the body at its
    // declared length, which is why a declared length within the limit is read whole.
    const { stream } = source([new Uint8Array(8), new Uint8Array(8)]);
    const result = await readBody(post(stream, { "content-length": "8" }), 10);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.status).toBe(413);
  });

  it("refuses invalid UTF-8 with 400 and -32700", async () => {
    const result = await readBody(post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 100);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.status).toBe(400);
      expect(result.error.code).toBe(ErrorCode.ParseError);
      expect(result.error.message).toContain("not valid UTF-8");
    }
  });

  it("strips a UTF-8 byte order mark", async () => {
    const result = await readBody(post(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), 100);
    expect(result).toEqual({ ok: true, value: "{}" });
  });
});
