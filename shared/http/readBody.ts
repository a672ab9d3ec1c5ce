/**
 * Reads a request body as UTF-8 text with a hard byte limit: a declared `Content-Length` over
 * the limit is refused before one byte is read; a declared one within it is read whole by the
 * runtime (the HTTP framing holds the body to that length); an undeclared (chunked) body is
 * streamed and cut off the moment it passes the limit. So memory never holds more than the
 * limit. Invalid UTF-8 is refused rather than replaced with U+FFFD, so what the handler sees is
 * what the client sent.
 *
 * Not here: JSON parsing (`parseMessages()`), content-type checks (`guards.ts`).
 */
import { concatBytes } from "../bytes/concatBytes.ts";
import { type Checked, passed, type Refused, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { requestHeaders } from "./requestHeaders.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The body's bytes as sent, within `maxBytes` (what a route parses, and hands on to a session object). */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Checked<Uint8Array>> {
  const declared = requestHeaders(request).get("content-length");
  if (declared !== null && Number(declared) > maxBytes) return tooLarge(maxBytes);
  // The common case, a declared length within the limit: one native read, no chunk loop (and no
  // look at `request.body`, a platform call of its own).
  let bytes: Uint8Array | undefined;
  if (declared !== null) bytes = new Uint8Array(await request.arrayBuffer());
  else if (!request.body) return passed(new Uint8Array(0));
  else bytes = await readChunks(request.body, maxBytes);
  if (!bytes || bytes.byteLength > maxBytes) return tooLarge(maxBytes);
  return passed(bytes);
}

/** Strict UTF-8: invalid input is a parse error (400, -32700), not U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): Checked<string> {
  try {
    return passed(utf8.decode(bytes));
  } catch {
    return refused(new McpError(400, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8"));
  }
}

/** The body's bytes, or undefined (and the body cancelled) once they pass `maxBytes`. */
async function readChunks(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(chunks, total);
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel("body over limit").catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
}

function tooLarge(maxBytes: number): Refused {
  return refused(new McpError(413, ErrorCode.InvalidRequest, `Request body exceeds the limit of ${maxBytes} bytes`));
}
