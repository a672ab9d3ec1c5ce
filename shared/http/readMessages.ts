/**
 * A POST body → validated JSON-RPC messages, with every stateless check in order: content type
 * (415), size while reading (413), UTF-8 and JSON (400, -32700), nesting and JSON-RPC shape
 * (400, -32600). Both transports' POST routes run it before the Durable Object hop.
 */
import type { Checked } from "../errors/Checked.ts";
import { type Parsed, parseMessages } from "../jsonrpc/parseMessages.ts";
import { requireJsonContentType } from "./guards.ts";
import { readBody } from "./readBody.ts";

export async function readMessages(request: Request, maxBytes: number): Promise<Checked<Parsed>> {
  const contentType = requireJsonContentType(request);
  if (!contentType.ok) return contentType;
  const body = await readBody(request, maxBytes);
  return body.ok ? parseMessages(body.value) : body;
}
