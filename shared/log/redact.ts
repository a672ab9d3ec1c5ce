/**
 * Masks secrets in text bound for an operator's log or trace backend: an exception's message and
 * stack, which a handler may have built from anything (a connection string, a header it
 * received). Masked: the secrets the request itself knows (its session id, its task id: bearer
 * credentials here), anything shaped like a bearer token or JWT, and the value after a word that
 * names a secret (`password=…`, `api_key: …`, `token is …`).
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
];

/** `text` with each known secret and each secret-shaped substring replaced by `[redacted]`. */
export function redact(text: string, known: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of known) if (secret && secret.length >= 8) out = out.split(secret).join(REDACTED);
  out = out.replace(PATTERNS[0]!, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(PATTERNS[1]!, REDACTED);
  out = out.replace(PATTERNS[2]!, (_m, name: string) => `${name}${REDACTED}`);
  out = out.replace(PATTERNS[3]!, (_m, prefix: string) => `${prefix}${REDACTED}@`);
  return out;
}
