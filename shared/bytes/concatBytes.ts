/** `parts` as one byte array of `total` bytes (their sum when omitted); the part itself when there is only one. */
export function concatBytes(parts: readonly Uint8Array[], total = parts.reduce((n, p) => n + p.byteLength, 0)): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
