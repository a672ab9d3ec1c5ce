/**
 * A short tag to log in place of a session id or a task id. Both are bearer secrets: whoever
 * reads one from a log line can speak for the session, or read, steer and cancel the task.
 * `logId(id)` is 12 hex characters (48 bits) of the 64-bit FNV-1a hash of the id's UTF-8 bytes:
 * stable, so every line of a session still greps together, and it does not contain the id.
 *
 * A log correlation tag, not a security primitive: FNV-1a is not a cryptographic hash, and it
 * is chosen because it is synchronous (the tag is built in constructors, where `crypto.subtle`'s
 * promise cannot be awaited). It is safe here because session and task ids are 128-bit random:
 * 48 bits of tag leave about 2^80 candidate ids per tag, so a tag does not help anyone guess one.
 * Tags may collide (~50% chance of one collision among ~16 million sessions); they label lines,
 * they do not identify sessions.
 */

/** FNV-1a 64-bit offset basis and prime (http://www.isthe.com/chongo/tech/comp/fnv/). */
const FNV_OFFSET_BASIS_64 = 0xcbf29ce484222325n;
const FNV_PRIME_64 = 0x100000001b3n;
/** Hex characters of the 16-character hash that are logged: 48 bits. */
const LOG_ID_HEX_CHARS = 12;

const encoder = new TextEncoder();

/**
 * The tag to log instead of `sessionId`: 12 lower-case hex characters, the same for the same id.
 *
 * @example logger.child({ session: logId(sessionId) }) // {"session":"4c9e0b1d2a7f",...}
 */
export function logId(sessionId: string): string {
  let hash = FNV_OFFSET_BASIS_64;
  for (const byte of encoder.encode(sessionId)) {
    hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * FNV_PRIME_64);
  }
  return hash.toString(16).padStart(16, "0").slice(0, LOG_ID_HEX_CHARS);
}
