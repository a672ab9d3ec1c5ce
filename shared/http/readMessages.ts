/**
 * A POST body → validated JSON-RPC messages, with every stateless check in order: content type
 * (415), size while reading (413), UTF-8 and JSON (400, -32700), nesting and JSON-RPC shape
 * (400, -32600). Both transports' POST routes run it before the Durable Object hop.
 */
import { requireJsonContentType } from "./guards.ts";
import { readBody } from "./readBody.ts";
import { type ParsedBody, parseMessages } from "../jsonrpc/parseMessages.ts";

export async function readMessages(request: Request, maxBytes: number): Promise<ParsedBody> {
  const contentType = requireJsonContentType(request);
  if (contentType) return { ok: false, error: contentType, id: null };
  const body = await readBody(request, maxBytes);
  if (!body.ok) return { ok: false, error: body.error, id: null };
  return parseMessages(body.text);
}
