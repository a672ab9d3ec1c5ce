/**
 * Reads a request body as UTF-8 text with a hard byte limit enforced while reading: a declared
 * `Content-Length` over the limit is refused before one byte is read, and an undeclared or lying
 * body is cut off the moment it passes the limit, so memory never holds more than the limit.
 * Invalid UTF-8 is refused rather than replaced with U+FFFD, so what the handler sees is what
 * the client sent.
 *
 * Not here: JSON parsing (`parseMessages()`), content-type checks (`guards.ts`).
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";

export type BodyResult = { ok: true; text: string } | { ok: false; error: McpError };

export async function readBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) return tooLarge(maxBytes);
  if (!request.body) return { ok: true, text: "" };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel("body over limit").catch(() => {});
      return tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = concat(chunks, total);
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    return { ok: false, error: new McpError(400, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8") };
  }
}

function tooLarge(maxBytes: number): BodyResult {
  return {
    ok: false,
    error: new McpError(413, ErrorCode.InvalidRequest, `Request body exceeds the limit of ${maxBytes} bytes`),
  };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
