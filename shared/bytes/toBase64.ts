/**
 * Bytes → standard base64 (RFC 4648 §4, with padding), as MCP `blob` and `data` fields expect.
 * Web-standard `btoa` only; `Uint8Array.prototype.toBase64` is not in every runtime yet.
 */

/** Bytes per `String.fromCharCode` call: well under engines' argument-count limits. */
const CHUNK_BYTES = 0x8000;

/** @example toBase64(new TextEncoder().encode("hi")) // "aGk=" */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK_BYTES) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK_BYTES));
  }
  return btoa(binary);
}
