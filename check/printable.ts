/**
 * A string made safe to print on a terminal: control characters (C0, DEL, C1) and the
 * bidirectional overrides are shown as escapes (`\x1b`, `\n`, `\u202e`), and the string is cut at
 * `MAX_PRINTED_CHARS`. What `check` prints quotes the server under check, which may be hostile:
 * unescaped, its answer could set the terminal's title, clear the screen, or start a line that
 * reads like a verdict. It does not change printable text, so the report reads as before.
 *
 * @example
 * printable("ok\x1b[2J\nPASS"); // "ok\\x1b[2J\\nPASS"
 */

/** How many characters of one string `check` prints before it cuts it with `…`. */
export const MAX_PRINTED_CHARS = 2_000;

/** C0 and C1 controls, DEL, and the characters that reorder text on screen (Unicode bidi controls). */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function printable(text: string, maxChars = MAX_PRINTED_CHARS): string {
  const cut = cutAt(text, maxChars);
  const escaped = cut.replace(UNPRINTABLE, escape);
  return cut === text ? escaped : `${escaped}…`;
}

/** `text` cut at `maxChars`, never on half a surrogate pair; itself when it is short enough. */
export function cutAt(text: string, maxChars = MAX_PRINTED_CHARS): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return NAMED[char] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`);
}
