/**
 * Masks secrets in text bound for an operator's log or trace backend: every string a log line
 * carries (`Logger`) and a span's status and resource URI (`mcpSpan.ts`), which a handler or a
 * client may have built from anything (a connection string, a header it received, a handle).
 * Masked: the secrets the request itself knows, anything shaped like one of the server's own
 * capabilities (32 lowercase hex digits standing alone: a session id, a task id, a handle; a
 * trace id has the same shape, so the server passes its own as text that is not redacted),
 * anything shaped like a bearer token or JWT, and the value after a word that names a secret
 * (`password=…`, `api_key: …`, `token is …`).
 *
 * A safety net, not a guarantee: a secret with no telling shape or name cannot be recognised. Code
 * should not put secrets in exceptions; this keeps the common slips out of the logs.
 */

export const REDACTED = "[redacted]";

const PATTERNS: readonly RegExp[] = [
  // Authorization header values.
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // JWTs (three base64url parts, the first a JSON header).
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // A value named as a secret: `password=x`, `"apiKey": "x"`, `secret is x`.
  /\b((?:[a-z_-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|credential|private[_-]?key)[a-z_-]*)["']?\s*(?:[:=]|\bis\b)\s*["']?)[^\s"',;&]+/gi,
  // Credentials in a URL: scheme://user:password@host.
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi,
  // A session id, a task id or a handle (`randomHex(16)`): 32 hex digits not inside a longer word.
  /(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])/g,
];

/**
 * How far past a cut `redactHead` looks, in UTF-16 code units: a secret that straddles the cut is
 * masked whole rather than left half visible (a handle is 32 units, a bearer token rarely over 64).
 */
export const STRADDLE_CHARS = 64;

/** `text` with each known secret and each secret-shaped substring replaced by `[redacted]`. */
export function redact(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of known) if (secret && secret.length >= 8) out = out.split(secret).join(REDACTED);
  out = out.replace(PATTERNS[0]!, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(PATTERNS[1]!, REDACTED);
  out = out.replace(PATTERNS[2]!, (_m, name: string) => `${name}${REDACTED}`);
  out = out.replace(PATTERNS[3]!, (_m, prefix: string) => `${prefix}${REDACTED}@`);
  out = out.replace(PATTERNS[4]!, REDACTED);
  return out;
}

/**
 * `redact` of the first `max` units of `text` and a little beyond (`STRADDLE_CHARS`), for a caller
 * that cuts the result to `max`: the work is bounded by `max`, not by a client's text.
 */
export function redactHead(text: string, max: number): string {
  return redact(text.length > max + STRADDLE_CHARS ? text.slice(0, max + STRADDLE_CHARS) : text);
}
