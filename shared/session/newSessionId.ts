/**
 * Session ids are bearer secrets: whoever knows one can post to the session and read its
 * stream. So 128 bits from the platform CSPRNG, hex-encoded (URL- and header-safe).
 */
export function newSessionId(): string {
  return randomHex(16);
}

/** `byteCount` random bytes from the platform CSPRNG, as lowercase hex. */
export function randomHex(byteCount: number): string {
  let hex = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(byteCount))) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
