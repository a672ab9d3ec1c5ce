/**
 * About how many bytes a structured-cloneable value takes once stored: the measure the per-home
 * byte bound (MAX_HOME_BYTES) counts in, the same on every runtime. It follows V8's serialiser,
 * which Durable Object storage and Deno KV both use, closely enough for a quota — strings one
 * byte per unit when Latin-1 and two otherwise, numbers eight, bytes as they are, a few bytes of
 * framing per item — without serialising anything. Each object is counted once (structured clone
 * keeps shared references shared), and counting stops once it passes `stopAbove`, so a huge
 * value costs no more than its first `stopAbove` bytes to refuse.
 *
 * Not exact: a storage's own encoding differs by a few bytes per item, never by a factor.
 */
import { serialisedLength } from "./utf8Length.ts";

/** Framing counted for each value: a tag and a length. */
const ITEM_BYTES = 5;

/** @example storedSize({ notes: ["a", "b"] }) // 42 */
export function storedSize(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= stopAbove) {
    const item = stack.pop();
    total += ITEM_BYTES;
    switch (typeof item) {
      case "string":
        total += serialisedLength(item);
        continue;
      case "number":
        total += 8;
        continue;
      case "bigint":
        total += Math.ceil(item.toString(16).length / 2);
        continue;
      case "object":
        break;
      default:
        // boolean, undefined (and symbol or function, which storage refuses anyway)
        continue;
    }
    if (item === null || seen.has(item)) continue;
    seen.add(item);
    if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer) total += item.byteLength;
    else if (item instanceof Date) total += 8;
    else if (item instanceof RegExp) total += serialisedLength(item.source);
    else if (item instanceof Map) for (const [k, v] of item) stack.push(k, v);
    else if (item instanceof Set) for (const v of item) stack.push(v);
    else if (Array.isArray(item)) for (const v of item) stack.push(v);
    else {
      for (const [k, v] of Object.entries(item)) {
        total += ITEM_BYTES + serialisedLength(k);
        stack.push(v);
      }
    }
  }
  return total;
}
