/**
 * The example's service clients: programs that sign in as themselves, with no person present (the
 * client credentials grant, RFC 6749 §4.4, MCP's SEP-1046). The operator lists them in the
 * `SERVICE_CLIENTS` secret, a JSON array; none registers dynamically:
 *
 *   [{ "client_id": "nightly-report", "scopes": ["mcp"], "secret_sha256": "<hex SHA-256 of its secret>" },
 *    { "client_id": "ci-agent", "scopes": ["mcp", "scores:admin"], "jwks": { "keys": [<its public JWK>] } }]
 *
 * Each has exactly one way to authenticate: `secret_sha256` (it sends its secret, by
 * `client_secret_basic` or `client_secret_post`; only the digest is configured, so the secret is
 * never stored here), or `jwks` (it signs an assertion per request, `private_key_jwt`, RFC 7523
 * §2.2, which SEP-1046 recommends: nothing here could be used to impersonate it). `scopes` is what
 * it may be granted, a subset of the server's.
 *
 * A client id is 1 to 64 of `A-Z a-z 0-9 . _ ~ -`: the same in a Basic header, a form and a log.
 *
 * Not here: how a request authenticates (`authenticateClient.ts`), what the token endpoint
 * answers (`clientCredentials.ts`).
 */
import type { JSONWebKeySet } from "jose";
import { SCOPES } from "./server.ts";

/** What the service clients need of the environment. */
export interface ServiceClientsEnv {
  /** The JSON array above (`wrangler secret put SERVICE_CLIENTS`); unset: no service clients, the grant is refused. */
  SERVICE_CLIENTS?: string;
}

export interface ServiceClient {
  id: string;
  /** What it may be granted. */
  scopes: readonly string[];
  /** The SHA-256 of its secret (32 bytes), for `client_secret_basic` and `client_secret_post`. */
  secretDigest?: Uint8Array;
  /** Its public keys, for `private_key_jwt`. */
  keys?: JSONWebKeySet;
}

export type ServiceClients = { ok: true; clients: ReadonlyMap<string, ServiceClient> } | { ok: false; problem: string };

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,64}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
/** Keys a client may sign its assertions with: those the provider accepts from its own clients too, so the metadata is one list. */
const ASSERTION_KEY_TYPES = "RSA, or EC on P-256";

let parsed: { text: string; result: ServiceClients } | undefined;

/** The configured service clients, or the sentence that says what is wrong with `SERVICE_CLIENTS`; undefined when it is unset. */
export function serviceClients(env: ServiceClientsEnv): ServiceClients | undefined {
  const text = env.SERVICE_CLIENTS;
  if (typeof text !== "string" || text.trim() === "") return undefined;
  if (parsed?.text !== text) parsed = { text, result: parse(text) };
  return parsed.result;
}

function parse(text: string): ServiceClients {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return { ok: false, problem: "SERVICE_CLIENTS is not JSON: give an array of { client_id, scopes, secret_sha256 or jwks }" };
  }
  if (!Array.isArray(list)) return { ok: false, problem: "SERVICE_CLIENTS must be a JSON array of { client_id, scopes, secret_sha256 or jwks }" };
  const clients = new Map<string, ServiceClient>();
  for (const [index, entry] of list.entries()) {
    const client = clientOf(entry);
    if (typeof client === "string") return { ok: false, problem: `SERVICE_CLIENTS[${index}]: ${client}` };
    if (clients.has(client.id)) return { ok: false, problem: `SERVICE_CLIENTS[${index}]: client_id "${client.id}" is listed twice` };
    clients.set(client.id, client);
  }
  return { ok: true, clients };
}

/** One entry, or what is wrong with it (never repeating a secret). */
function clientOf(entry: unknown): ServiceClient | string {
  if (typeof entry !== "object" || entry === null) return "each entry must be an object";
  const { client_id: id, scopes, secret_sha256: digest, jwks } = entry as Record<string, unknown>;
  if (typeof id !== "string" || !CLIENT_ID.test(id)) return "client_id must be 1 to 64 of A-Z a-z 0-9 . _ ~ -";
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === "string" && SCOPES.includes(s))) {
    return `"${id}": scopes must be a non-empty list of this server's scopes (${SCOPES.join(", ")})`;
  }
  if ((digest === undefined) === (jwks === undefined)) return `"${id}": give exactly one of secret_sha256 and jwks`;
  if (digest !== undefined) {
    if (typeof digest !== "string" || !SHA256_HEX.test(digest)) return `"${id}": secret_sha256 must be 64 hex digits (printf %s "$SECRET" | sha256sum)`;
    return { id, scopes, secretDigest: Uint8Array.from(digest.match(/../g)!, (byte) => parseInt(byte, 16)) };
  }
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) return `"${id}": jwks must be a JWK Set, { "keys": [ … ] }, with at least one key`;
  for (const key of keys as Record<string, unknown>[]) {
    const usable = key?.kty === "RSA" || (key?.kty === "EC" && key.crv === "P-256");
    if (!usable) return `"${id}": each key in jwks must be ${ASSERTION_KEY_TYPES}`;
    if ("d" in key) return `"${id}": jwks holds a private key; give only its public part`;
  }
  return { id, scopes, keys: { keys } as JSONWebKeySet };
}
