/**
 * A POST body → validated JSON-RPC messages, with every stateless check in order: content type
 * (415), size while reading (413), UTF-8 and JSON (400, -32700), nesting and JSON-RPC shape
 * (400, -32600). Both transports' POST routes run it before the Durable Object hop. The bytes
 * read come with the messages, for a route that hands the body on as it came rather than the parse.
 */
import type { Checked } from "../errors/Checked.ts";
import { type Parsed, parseMessages } from "../jsonrpc/parseMessages.ts";
import { requireJsonContentType } from "./guards.ts";
import { decodeUtf8, readBodyBytes } from "./readBody.ts";

/** What a POST carried: its messages, and the bytes they were read from. */
export interface Received extends Parsed {
  body: Uint8Array;
}

export async function readMessages(request: Request, maxBytes: number): Promise<Checked<Received>> {
  const contentType = requireJsonContentType(request);
  if (!contentType.ok) return contentType;
  const body = await readBodyBytes(request, maxBytes);
  if (!body.ok) return body;
  const text = decodeUtf8(body.value);
  if (!text.ok) return text;
  const parsed = parseMessages(text.value);
  // The parse is this call's own, just made: the bytes join it rather than a copy of it.
  if (parsed.ok) (parsed.value as Received).body = body.value;
  return parsed as Checked<Received>;
}
