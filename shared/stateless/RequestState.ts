/**
 * `requestState` for multi round-trip requests (2026-07-28, "Multi Round-Trip Requests"): what a
 * handler has been told so far, carried by the client between rounds instead of stored by us.
 * The spec makes it attacker-controlled input, so it is sealed:
 *
 *   <base64url(JSON payload)>.<base64url(HMAC-SHA256(secret, payload))>
 *
 * The payload binds the state to its request (method and a digest of the request's salient
 * params: everything but `_meta`, `inputResponses` and `requestState`) and to an expiry, so a
 * state cannot be edited, moved to another tool or other arguments, or replayed after it lapses.
 * It holds the input answers gathered in earlier rounds, keyed as the handler asked for them.
 *
 * The secret comes from `REQUEST_STATE_SECRET`. Without one, each isolate draws a random key:
 * fine on one process (`npm start`, tests), but a retry that lands on another Worker isolate
 * would fail verification, so deployments set the secret (`wrangler secret put`).
 */
import { base64url, fromBase64url, sha256 } from "../bytes/base64url.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";

export interface SealedState {
  /** The request method the state belongs to. */
  method: string;
  /** `paramsDigest` of that request. */
  digest: string;
  /** Epoch milliseconds after which the state is refused. */
  expiresAt: number;
  /** Input answers from earlier rounds, by input key. */
  answers: Record<string, unknown>;
}

const encoder = new TextEncoder();

export class RequestState {
  readonly #key: Promise<CryptoKey>;
  readonly #ttlMs: number;

  /** @param secret at least 32 characters; undefined draws a random per-process key. */
  constructor(secret: string | undefined, ttlMs: number) {
    if (secret !== undefined && secret.length < 32) {
      throw new RangeError(`REQUEST_STATE_SECRET must be at least 32 characters (got ${secret.length}); e.g. openssl rand -hex 32`);
    }
    const raw = secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : encoder.encode(secret);
    this.#key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    this.#ttlMs = ttlMs;
  }

  /** A token for `answers`, valid for this request for the configured time. */
  async seal(method: string, digest: string, answers: Record<string, unknown>, now = Date.now()): Promise<string> {
    const payload: SealedState = { method, digest, expiresAt: now + this.#ttlMs, answers };
    const body = base64url(encoder.encode(JSON.stringify(payload)));
    const mac = await crypto.subtle.sign("HMAC", await this.#key, encoder.encode(body));
    return `${body}.${base64url(new Uint8Array(mac))}`;
  }

  /**
   * The answers sealed in `token`, if it is ours, unexpired and for this very request.
   * @throws McpError -32602 (HTTP 400) naming what failed; the client should start over.
   */
  async open(token: unknown, method: string, digest: string, now = Date.now()): Promise<Record<string, unknown>> {
    const refuse = (why: string) => new McpError(400, ErrorCode.InvalidParams, `requestState rejected: ${why}; retry the request without requestState`);
    if (typeof token !== "string") throw refuse("it must be the string the server sent");
    const [body, mac, extra] = token.split(".");
    const macBytes = mac === undefined ? undefined : fromBase64url(mac);
    // Only the one spelling we issue: base64 leaves spare bits in the last character, and a
    // state with another spelling of the same MAC is still not the state we sent.
    if (!body || !macBytes || base64url(macBytes) !== mac || extra !== undefined) throw refuse("it is not a state this server issued");
    // verify() compares in constant time.
    if (!(await crypto.subtle.verify("HMAC", await this.#key, macBytes, encoder.encode(body)))) {
      throw refuse("its signature does not verify (tampered, or issued by another server)");
    }
    const payload = JSON.parse(new TextDecoder().decode(fromBase64url(body))) as SealedState;
    if (payload.method !== method || payload.digest !== digest) throw refuse("it was issued for a different request");
    if (now > payload.expiresAt) throw refuse("it has expired");
    return payload.answers;
  }
}

/** SHA-256 over the canonical JSON of the request's own params: what a state is bound to. */
/** `REQUEST_STATE_SECRET` from the environment, or undefined when unset or empty (a random key is drawn). */
export function requestStateSecret(env: Readonly<Record<string, unknown>>): string | undefined {
  const secret = env.REQUEST_STATE_SECRET;
  return typeof secret === "string" && secret !== "" ? secret : undefined;
}

export async function paramsDigest(params: Record<string, unknown>): Promise<string> {
  const { _meta, inputResponses, requestState, ...salient } = params;
  return sha256(canonicalJson(salient));
}

/** JSON with object keys sorted at every depth, so equal values give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
