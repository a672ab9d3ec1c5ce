/**
 * Bytes ↔ base64url without padding (RFC 4648 §5), for tokens and digests that travel in URLs,
 * headers and JSON: sealed `requestState`, a principal's digest. Web-standard `btoa`/`atob` only.
 */
import { toBase64 } from "./toBase64.ts";

export function base64url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The bytes, or undefined for text that is not base64url. */
export function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** base64url of the SHA-256 of `text`'s UTF-8. */
export async function sha256(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}
