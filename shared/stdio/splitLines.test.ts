import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { type LineResult, splitLines } from "./splitLines.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A stream that yields these chunks, then ends. */
function streamOf(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? bytes(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect(input: ReadableStream<Uint8Array>, max = 1_000): Promise<LineResult[]> {
  const out: LineResult[] = [];
  for await (const line of splitLines(input, max)) out.push(line);
  return out;
}

const texts = (lines: LineResult[]) => lines.map((l) => (l.ok ? l.value : `error ${l.error.code}`));

describe("splitLines", () => {
  it("splits on LF, whatever the chunk boundaries", async () => {
    expect(texts(await collect(streamOf('{"a":1}\n{"b"', ':2}\n{"c":3}\n{"d":4}\n')))).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']);
    expect(texts(await collect(streamOf(..."ab\ncd\n".split(""))))).toEqual(["ab", "cd"]);
  });

  it("decodes a multi-byte character split across chunks", async () => {
    const encoded = bytes('"é€😀"\n');
    const chunks = [...encoded].map((b) => new Uint8Array([b]));
    expect(texts(await collect(streamOf(...chunks)))).toEqual(['"é€😀"']);
  });

  it("drops one CR before LF, skips blank lines, and keeps a last line without a terminator", async () => {
    expect(texts(await collect(streamOf("one\r\n\n  \r\n\ttwo\nthree")))).toEqual(["one", "\ttwo", "three"]);
  });

  it("takes a line of exactly the limit, and answers one error for a longer one, then goes on", async () => {
    const lines = await collect(streamOf("x".repeat(10), "\n", "y".repeat(6), "y".repeat(5), "\n", "z\n"), 10);
    expect(texts(lines)).toEqual(["x".repeat(10), `error ${ErrorCode.InvalidRequest}`, "z"]);
    const error = (lines[1] as { ok: false; error: { message: string; status: number } }).error;
    expect(error.message).toBe("Message line exceeds the limit of 10 bytes (MAX_BODY_BYTES); it was skipped");
    expect(error.status).toBe(413);
  });

  it("skips an endless line without buffering it, and reports it at the end of input", async () => {
    const chunk = new Uint8Array(65_536).fill(0x41);
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 16 MiB without a newline against a 1 KiB limit.
        if (sent++ < 256) controller.enqueue(chunk);
        else controller.close();
      },
    });
    expect(texts(await collect(endless, 1_024))).toEqual([`error ${ErrorCode.InvalidRequest}`]);
  });

  it("answers invalid UTF-8 with a parse error, not U+FFFD", async () => {
    const lines = await collect(streamOf(new Uint8Array([0x22, 0xff, 0xfe, 0x22, 0x0a]), "ok\n"));
    expect(texts(lines)).toEqual([`error ${ErrorCode.ParseError}`, "ok"]);
  });

  it("stops, cancelling the input, when its signal aborts", async () => {
    let cancelled: unknown;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const input = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        c.enqueue(bytes("first\n"));
      },
      cancel: (reason) => void (cancelled = reason ?? "cancelled"),
    });
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const line of splitLines(input, 100, stop.signal)) {
      seen.push(line.ok ? line.value : "error");
      controller.enqueue(bytes("never read\n"));
      stop.abort("output gone");
    }
    expect(seen).toEqual(["first"]);
    expect(cancelled).toBe("output gone");
  });
});
