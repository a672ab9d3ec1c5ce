/** `byteCount` random bytes from the platform CSPRNG, as lowercase hex: what session, task and handle ids are made of. */
export function randomHex(byteCount: number): string {
  let hex = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(byteCount))) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
