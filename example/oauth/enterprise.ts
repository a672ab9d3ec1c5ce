/**
 * Enterprise sign-in for the OAuth example (the MCP Enterprise-Managed Authorization extension):
 * a person signed in to their MCP client through the company's identity provider gets an
 * Identity Assertion JWT Authorization Grant (ID-JAG) from that provider, and the client trades it
 * at `/token` (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`) for an access token, with
 * no consent page. The provider (`@cloudflare/workers-oauth-provider`) checks the assertion: its
 * `typ`, signature (the identity provider's key set), `iss`, `aud`, `client_id` against the
 * authenticated client, `resource`, lifetime, and refuses a `jti` seen before. Here: which identity
 * providers and clients are trusted, and who the user is.
 *
 * Configured by `ENTERPRISE_IDP` (JSON: one identity provider, or a list):
 *
 * ```json
 * { "issuer": "https://idp.example.com", "jwks_uri": "https://idp.example.com/keys",
 *   "clients": ["<the MCP client's client_id at this authorization server>"] }
 * ```
 *
 * with optional `audience` (default: this authorization server's issuer) and `algorithms`
 * (default `["RS256"]`; `ES256` too). Unset, the grant is not offered. A client must authenticate
 * (a confidential client: the extension's profile asks for one) and be listed for that issuer.
 *
 * The user: `enterpriseUserId(iss, sub)` (`userIds.ts`: no two identity-provider users, and no
 * consent-page user, share an id, so each has a home of their own).
 */
import type { EmaOptions, EmaTrustedIssuer } from "@cloudflare/workers-oauth-provider";
import { proofKeyOf } from "./proofKey.ts";
import { BASE_SCOPE, SCOPES } from "./server.ts";
import { enterpriseUserId } from "./userIds.ts";

/** One trusted identity provider, as `ENTERPRISE_IDP` names it. */
export interface EnterpriseIdp {
  issuer: string;
  jwks_uri: string;
  /** The client ids (at this authorization server) whose ID-JAGs from this issuer are accepted. */
  clients: string[];
  audience?: string;
  algorithms?: string[];
}

/** The provider's `enterpriseManagedAuthorization` for `ENTERPRISE_IDP`; undefined when it is unset. */
export function enterpriseAuthorization<Env>(env: { ENTERPRISE_IDP?: unknown }): EmaOptions<Env> | undefined {
  const idps = enterpriseIdps(env.ENTERPRISE_IDP);
  if (!idps) return undefined;
  return {
    trustedIssuers: async ({ iss, clientInfo }) => {
      const idp = idps.find((candidate) => candidate.issuer === iss);
      if (!idp || !idp.clients.includes(clientInfo.clientId)) return null;
      const trusted: EmaTrustedIssuer = { issuer: idp.issuer, jwksUri: idp.jwks_uri };
      if (idp.audience) trusted.audience = idp.audience;
      if (idp.algorithms) trusted.algorithms = idp.algorithms;
      return trusted;
    },
    // The scopes asked for (already narrowed to the assertion's) that this server has; `mcp` is needed.
    mapClaims: async ({ claims, requestedScope, env }) => {
      const scope = requestedScope.filter((s) => SCOPES.includes(s));
      if (!scope.includes(BASE_SCOPE)) return null;
      const email = typeof claims.email === "string" ? claims.email : undefined;
      return {
        userId: enterpriseUserId(claims.iss, claims.sub),
        scope,
        metadata: { issuer: claims.iss, subject: claims.sub, signedInAt: new Date().toISOString() },
        // A DPoP proof at the token endpoint binds the token to its key (`dpopTokens.ts`; `providerVerifier` reads `cnf.jkt`).
        props: { enterprise: { issuer: claims.iss, subject: claims.sub, ...(email ? { email } : {}) }, ...binding(env) },
      };
    },
  };
}

/** The props that bind a token to the key of this token request's DPoP proof; none without one. */
function binding(env: unknown): { cnf?: { jkt: string } } {
  const jkt = proofKeyOf(env as object);
  return jkt === undefined ? {} : { cnf: { jkt } };
}

/** `ENTERPRISE_IDP` read and checked: JSON text or an object (wrangler.toml `[vars]`), one or a list. */
export function enterpriseIdps(value: unknown): EnterpriseIdp[] | undefined {
  if (value === undefined || value === "") return undefined;
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new TypeError("ENTERPRISE_IDP is not JSON: give an object with issuer, jwks_uri and clients (or a list of them)");
    }
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((idp, i) => checked(idp, `ENTERPRISE_IDP${Array.isArray(parsed) ? `[${i}]` : ""}`));
}

function checked(idp: unknown, where: string): EnterpriseIdp {
  if (typeof idp !== "object" || idp === null) throw new TypeError(`${where} is not an object with issuer, jwks_uri and clients`);
  const { issuer, jwks_uri, clients, audience, algorithms } = idp as Record<string, unknown>;
  // The provider fetches keys and matches issuers only over https.
  for (const [name, url] of [["issuer", issuer], ["jwks_uri", jwks_uri]] as const) {
    if (typeof url !== "string" || !url.startsWith("https://")) throw new TypeError(`${where}.${name} must be an https URL (got ${JSON.stringify(url)})`);
  }
  if (!Array.isArray(clients) || clients.length === 0 || !clients.every((c) => typeof c === "string" && c !== "")) {
    throw new TypeError(`${where}.clients must list the client ids allowed to present this issuer's ID-JAGs (got ${JSON.stringify(clients)})`);
  }
  if (audience !== undefined && typeof audience !== "string") throw new TypeError(`${where}.audience must be a URL string`);
  if (algorithms !== undefined && !(Array.isArray(algorithms) && algorithms.every((a) => a === "RS256" || a === "ES256"))) {
    throw new TypeError(`${where}.algorithms must list RS256 and/or ES256 (got ${JSON.stringify(algorithms)})`);
  }
  return { issuer: issuer as string, jwks_uri: jwks_uri as string, clients, audience, algorithms } as EnterpriseIdp;
}
