/**
 * Session ids are bearer secrets: whoever knows one can post to the session and read its
 * stream. So 128 bits from the platform CSPRNG, hex-encoded (URL- and header-safe).
 */
export function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
