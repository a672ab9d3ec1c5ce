/**
 * What a resource's `read` returned → the `contents` of a `resources/read` result (MCP
 * `TextResourceContents` / `BlobResourceContents`). Text keeps its URI and MIME type, bytes go
 * out base64-encoded as `blob`, and a list is checked item by item.
 *
 * A malformed return is a bug in the server, not in the request: it throws a TypeError, which
 * the error boundary logs and answers as -32603 (resources spec, "Error Handling").
 */
import type { ResourceReturn } from "../definition/ResourceDefinition.ts";
import { toBase64 } from "../bytes/toBase64.ts";
import type { ResourceContents } from "../definition/types.ts";

/**
 * @param uri      The URI the client read (for a template, the concrete one).
 * @param mimeType The definition's MIME type, if any; applied to text and bytes only.
 * @param what     Names the definition in error messages, e.g. `Resource "config://app"`.
 *
 * @example toResourceContents("hi", "notes://1", "text/plain", "Resource notes://1")
 * // [{ uri: "notes://1", mimeType: "text/plain", text: "hi" }]
 */
export function toResourceContents(value: ResourceReturn, uri: string, mimeType: string | undefined, what: string): ResourceContents[] {
  const type = mimeType === undefined ? {} : { mimeType };
  if (typeof value === "string") return [{ uri, ...type, text: value }];
  if (value instanceof Uint8Array) return [{ uri, ...type, blob: toBase64(value) }];
  if (!Array.isArray(value)) {
    throw new TypeError(`${what} read returned ${describe(value)}; return a string, a Uint8Array, or ResourceContents[]`);
  }
  value.forEach((item, i) => {
    const problem = contentsProblem(item);
    if (problem) throw new TypeError(`${what} read returned contents[${i}] ${problem}`);
  });
  return value;
}

function contentsProblem(item: unknown): string | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return `as ${describe(item)}, not an object`;
  const record = item as Record<string, unknown>;
  if (typeof record.uri !== "string") return 'without a string "uri"';
  if (record.mimeType !== undefined && typeof record.mimeType !== "string") return 'with a "mimeType" that is not a string';
  const text = typeof record.text === "string";
  const blob = typeof record.blob === "string";
  if (text === blob) return 'that needs exactly one of "text" or "blob" (base64), as a string';
  return undefined;
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}
