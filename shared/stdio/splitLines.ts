/**
 * A byte stream (a process's stdin) → its lines, as UTF-8 text, with a hard limit on a line's
 * size enforced while reading: a line that passes `maxLineBytes` stops being buffered at once,
 * the rest of it is skipped up to its "\n", and it comes out as one error value. So memory holds
 * at most one line of at most `maxLineBytes` however much a client writes without a newline.
 *
 * Lines end at LF; one CR before it is dropped (a CRLF client). Blank lines carry no message and
 * are skipped. A last line without a terminator still counts when the input ends. Invalid UTF-8
 * is an error value (-32700), not replaced with U+FFFD, as for HTTP bodies (`readBody`).
 *
 * Not here: JSON parsing (`parseMessages`), what to answer (`serveStdio`).
 */
import { type Checked, passed, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { concatBytes } from "../bytes/concatBytes.ts";

/** One line's text, or why it carries no message (too long, not UTF-8). */
export type LineResult = Checked<string>;

const LF = 0x0a;
const CR = 0x0d;

/**
 * @param signal aborting it cancels the input and ends the iteration (the output side is gone).
 *
 * @example for await (const line of splitLines(Deno.stdin.readable, 4_194_304)) if (line.ok) handle(line.value);
 */
export async function* splitLines(input: ReadableStream<Uint8Array>, maxLineBytes: number, signal?: AbortSignal): AsyncGenerator<LineResult> {
  const reader = input.getReader();
  const stop = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversized = false;
  try {
    while (!signal?.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      let start = 0;
      for (;;) {
        const newline = value.indexOf(LF, start);
        const end = newline < 0 ? value.length : newline;
        if (!oversized && end > start) {
          if (size + (end - start) > maxLineBytes) {
            oversized = true;
            parts = [];
            size = 0;
          } else {
            // A copy: the runtime may reuse the chunk's memory once we read again.
            parts.push(value.slice(start, end));
            size += end - start;
          }
        }
        if (newline < 0) break;
        const line = oversized ? tooLong(maxLineBytes) : decode(parts, size);
        parts = [];
        size = 0;
        oversized = false;
        start = newline + 1;
        if (line) yield line;
      }
    }
    if (signal?.aborted) return;
    const last = oversized ? tooLong(maxLineBytes) : decode(parts, size);
    if (last) yield last;
  } finally {
    signal?.removeEventListener("abort", stop);
    reader.releaseLock();
  }
}

/** The line's text, or undefined for a blank line. */
function decode(parts: Uint8Array[], size: number): LineResult | undefined {
  let bytes = concatBytes(parts, size);
  if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, -1);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return refused(McpError.parse("Parse error: the line is not valid UTF-8"));
  }
  return text.trim() === "" ? undefined : passed(text);
}

function tooLong(maxLineBytes: number): LineResult {
  return refused(new McpError(413, ErrorCode.InvalidRequest, `Message line exceeds the limit of ${maxLineBytes} bytes (MAX_BODY_BYTES); it was skipped`));
}
