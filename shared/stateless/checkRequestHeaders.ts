/**
 * The request headers 2026-07-28 requires on Streamable HTTP ("Request Metadata"): `Mcp-Method`
 * on every request, `Mcp-Name` on `tools/call`, `prompts/get` and `resources/read` (and, with the
 * tasks extension, the task id on `tasks/get`, `tasks/update` and `tasks/cancel`), and each
 * `Mcp-Param-<Name>` a tool declared with `x-mcp-header`. Each must equal the body's value; a
 * missing, malformed or disagreeing header is HTTP 400 with -32020 (HeaderMismatch).
 *
 * Values are compared after trimming optional whitespace and decoding the `=?base64?…?=`
 * form (which clients use for values a header cannot carry as is). Names are case-insensitive,
 * values are not.
 */
import { type Checked, PASSED, passed, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { ParamHeader } from "../schema/paramHeaders.ts";

/** Which body field `Mcp-Name` mirrors, per method. */
const NAME_FIELD: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension routes its methods by task id ("so load balancers can route to the instance holding its state").
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const mismatch = (message: string) => refused(new McpError(400, ErrorCode.HeaderMismatch, `Header mismatch: ${message}`));

export function checkRequestHeaders(headers: Headers, method: string, params: Record<string, unknown>, paramHeaders: readonly ParamHeader[] = []): Checked {
  const sentMethod = headerValue(headers, "mcp-method");
  if (!sentMethod.ok) return sentMethod;
  if (sentMethod.value === undefined) return mismatch("the Mcp-Method header is required");
  if (sentMethod.value !== method) return mismatch(`Mcp-Method header value ${JSON.stringify(sentMethod.value)} does not match body method ${JSON.stringify(method)}`);

  const field = NAME_FIELD[method];
  if (field !== undefined) {
    const sentName = headerValue(headers, "mcp-name");
    if (!sentName.ok) return sentName;
    if (sentName.value === undefined) return mismatch(`the Mcp-Name header is required for ${method}`);
    if (sentName.value !== params[field]) return mismatch(`Mcp-Name header value ${JSON.stringify(sentName.value)} does not match body ${field} ${JSON.stringify(params[field])}`);
  }

  const args = params.arguments;
  for (const { path, name, type } of paramHeaders) {
    const header = `Mcp-Param-${name}`;
    const read = headerValue(headers, header);
    if (!read.ok) return read;
    const sent = read.value;
    const value = path.reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), args);
    if (value === undefined || value === null) {
      if (sent !== undefined) return mismatch(`${header} was sent but argument ${path.join(".")} is absent`);
      continue;
    }
    if (sent === undefined) return mismatch(`the ${header} header is required when argument ${path.join(".")} is given`);
    const matches =
      type === "integer" ? /^-?\d+$/.test(sent) && Number(sent) === value : type === "boolean" ? sent === String(value) : sent === value;
    if (!matches) return mismatch(`${header} header value ${JSON.stringify(sent)} does not match argument ${path.join(".")} ${JSON.stringify(value)}`);
  }
  return PASSED;
}

/** A header's value, trimmed and decoded (undefined when absent); refused when its base64 form is broken. */
function headerValue(headers: Headers, name: string): Checked<string | undefined> {
  const raw = headers.get(name);
  if (raw === null) return passed(undefined);
  const value = raw.trim();
  // Values that are not printable ASCII must come base64-wrapped; runtimes decode raw bytes
  // differently (workerd as Latin-1), so comparing them as they arrive would not be one rule.
  if (!/^[\x20-\x7E]*$/.test(value)) return mismatch(`${name} holds characters outside printable ASCII; send such values as =?base64?…?=`);
  const encoded = value.startsWith("=?") ? /^=\?base64\?(.*)\?=$/.exec(value) : null;
  if (!encoded) return passed(value);
  const text = encoded[1]!;
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return mismatch(`${name} holds malformed base64 ${JSON.stringify(value)}`);
  try {
    return passed(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0))));
  } catch {
    return mismatch(`${name} holds base64 that is not UTF-8 text`);
  }
}
