/**
 * The request headers 2026-07-28 requires on Streamable HTTP ("Request Metadata"): `Mcp-Method`
 * on every request, `Mcp-Name` on `tools/call`, `prompts/get` and `resources/read`, and each
 * `Mcp-Param-<Name>` a tool declared with `x-mcp-header`. Each must equal the body's value; a
 * missing, malformed or disagreeing header is HTTP 400 with -32020 (HeaderMismatch).
 *
 * Values are compared after trimming optional whitespace and decoding the `=?base64?…?=`
 * form (which clients use for values a header cannot carry as is). Names are case-insensitive,
 * values are not.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { ParamHeader } from "../server/paramHeaders.ts";

/** Which body field `Mcp-Name` mirrors, per method. */
const NAME_FIELD: Readonly<Record<string, string>> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

const mismatch = (message: string) => new McpError(400, ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);

export function checkRequestHeaders(headers: Headers, method: string, params: Record<string, unknown>, paramHeaders: readonly ParamHeader[] = []): void {
  const sentMethod = headerValue(headers, "mcp-method");
  if (sentMethod === undefined) throw mismatch("the Mcp-Method header is required");
  if (sentMethod !== method) throw mismatch(`Mcp-Method header value ${JSON.stringify(sentMethod)} does not match body method ${JSON.stringify(method)}`);

  const field = NAME_FIELD[method];
  if (field !== undefined) {
    const sentName = headerValue(headers, "mcp-name");
    if (sentName === undefined) throw mismatch(`the Mcp-Name header is required for ${method}`);
    if (sentName !== params[field]) throw mismatch(`Mcp-Name header value ${JSON.stringify(sentName)} does not match body ${field} ${JSON.stringify(params[field])}`);
  }

  const args = params.arguments;
  for (const { path, name, type } of paramHeaders) {
    const header = `Mcp-Param-${name}`;
    const sent = headerValue(headers, header);
    const value = path.reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), args);
    if (value === undefined || value === null) {
      if (sent !== undefined) throw mismatch(`${header} was sent but argument ${path.join(".")} is absent`);
      continue;
    }
    if (sent === undefined) throw mismatch(`the ${header} header is required when argument ${path.join(".")} is given`);
    const matches =
      type === "integer" ? /^-?\d+$/.test(sent) && Number(sent) === value : type === "boolean" ? sent === String(value) : sent === value;
    if (!matches) throw mismatch(`${header} header value ${JSON.stringify(sent)} does not match argument ${path.join(".")} ${JSON.stringify(value)}`);
  }
}

/** A header's value, trimmed and decoded; undefined when absent. @throws McpError for a broken base64 form. */
function headerValue(headers: Headers, name: string): string | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const value = raw.trim();
  // Values that are not printable ASCII must come base64-wrapped; runtimes decode raw bytes
  // differently (workerd as Latin-1), so comparing them as they arrive would not be one rule.
  if (!/^[\x20-\x7E]*$/.test(value)) throw mismatch(`${name} holds characters outside printable ASCII; send such values as =?base64?…?=`);
  const encoded = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!encoded) return value;
  const text = encoded[1]!;
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw mismatch(`${name} holds malformed base64 ${JSON.stringify(value)}`);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    throw mismatch(`${name} holds base64 that is not UTF-8 text`);
  }
}
