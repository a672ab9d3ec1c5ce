/**
 * Session ids are bearer secrets: whoever knows one can post to the session and read its
 * stream. So 128 bits from the platform CSPRNG, hex-encoded (URL- and header-safe).
 */
import { randomHex } from "../bytes/randomHex.ts";

export function newSessionId(): string {
  return randomHex(16);
}
