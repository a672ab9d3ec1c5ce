/**
 * Byte counts of text as the limits mean them. A JavaScript string's `length` counts UTF-16
 * units; the wire counts UTF-8 bytes (up to three per unit), and storage that serialises
 * strings (Durable Object storage, Deno KV) takes two bytes per unit once any character is
 * above U+00FF. A limit in bytes compared with `length` lets the first through three times
 * over, and the second twice.
 */

/**
 * The UTF-8 byte length of `text`, without encoding it.
 *
 * @example utf8Length("a—") // 4
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    // A surrogate pair is two units and four bytes: one extra byte per unit.
    else if (unit >= 0xd800 && unit <= 0xdfff) bytes += 1;
    else bytes += 2;
  }
  return bytes;
}

/**
 * What `text` takes in storage that serialises strings (V8's serialiser, Deno KV): one byte per
 * unit if every character fits in Latin-1, else two.
 *
 * @example serialisedLength("a—") // 4
 */
export function serialisedLength(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return text.length * 2;
  return text.length;
}
