/**
 * Test helper: an enterprise identity provider on 127.0.0.1, built from `jose`, that speaks the
 * parts of the Identity Assertion JWT Authorization Grant an MCP client meets:
 *
 * - `idToken(user)`: the OpenID Connect ID token single sign-on gives the client (its `aud` is the
 *   client's id at the identity provider);
 * - `POST /token`, RFC 8693 token exchange: that ID token (with the client's own credentials) for an
 *   ID-JAG (`typ: oauth-id-jag+jwt`; `iss`, `sub`, `aud` = the `audience` asked for, the client's id
 *   at that authorization server, `jti`, `iat`, `exp`, `resource`, `scope`), only for a client it
 *   knows and an audience it has that client's id for;
 * - its metadata (`/.well-known/oauth-authorization-server`) and key set (`/jwks`, RS256);
 * - `assertion(claims, options)`: an ID-JAG signed as the test says (another key, expired, another
 *   `aud`), for the refusal tests.
 *
 * Its issuer is an https URL (an authorization server trusts identity providers only over https);
 * it listens on loopback http, so both sides reach it through a route: the server's outbound
 * fetches with `startServer`'s `outbound: idp.route`, the client's with `idp.fetch`.
 *
 * Not here: sign-in pages, refresh tokens, SAML; the policy is "a known client may ask for any
 * audience it has an id at, for a resource on that audience's origin".
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type CryptoKey, exportJWK, generateKeyPair, jwtVerify, type JWTPayload, SignJWT } from "jose";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
const KID = "idp-1";
/** How long an ID-JAG it issues lasts (the extension asks for short-lived grants). */
const ID_JAG_LIFETIME_S = 300;
const ID_TOKEN_LIFETIME_S = 600;

/** A client the identity provider knows: its credentials there, and its client id at each authorization server. */
export interface IdpClient {
  id: string;
  secret: string;
  /** Authorization server issuer → this client's `client_id` there. */
  clientIdAt: Record<string, string>;
}

export interface EnterpriseIdp {
  /** The https issuer the tokens carry. */
  issuer: string;
  /** Where it listens: `http://127.0.0.1:<port>`. */
  origin: string;
  /** For `startServer({ outbound })`. */
  route: Record<string, string>;
  /** A fetch that reaches `issuer` at `origin` (for the client side). */
  fetch: typeof fetch;
  addClient(client: IdpClient): void;
  idToken(user: string, clientId: string, claims?: Record<string, unknown>): Promise<string>;
  /** An ID-JAG with exactly these claims (`iss` and `typ` filled in unless given), signed by its key or `key`. */
  assertion(claims: JWTPayload, options?: { key?: CryptoKey; typ?: string }): Promise<string>;
  /** A key that is not in its key set. */
  strangerKey: CryptoKey;
  /** The token exchanges it answered with an ID-JAG, newest last. */
  issued: JWTPayload[];
  close(): Promise<void>;
}

export async function startEnterpriseIdp(issuer = "https://idp.enterprise.test"): Promise<EnterpriseIdp> {
  const keys = await generateKeyPair("RS256");
  const stranger = await generateKeyPair("RS256");
  const jwks = { keys: [{ ...(await exportJWK(keys.publicKey)), kid: KID, alg: "RS256", use: "sig" }] };
  const clients = new Map<string, IdpClient>();
  const issued: JWTPayload[] = [];

  const sign = (claims: JWTPayload, typ: string, key: CryptoKey = keys.privateKey) => new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: KID, typ }).sign(key);

  // RFC 8414 (and the SDK's reader) ask for the authorization endpoint a single sign-on starts at;
  // it is not served: `idToken` stands for that sign-in.
  const metadata = () => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    response_types_supported: ["code"],
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    grant_types_supported: [TOKEN_EXCHANGE],
    identity_chaining_requested_token_types_supported: [ID_JAG],
    token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
  });

  async function exchange(form: URLSearchParams, authorization: string | undefined): Promise<[number, object]> {
    const [id, secret] = authorization?.startsWith("Basic ") ? basicCredentials(authorization.slice(6)) : [form.get("client_id"), form.get("client_secret")];
    const client = id ? clients.get(id) : undefined;
    if (!client || client.secret !== secret) return [401, { error: "invalid_client", error_description: "Unknown client or wrong secret" }];
    if (form.get("grant_type") !== TOKEN_EXCHANGE) return [400, { error: "unsupported_grant_type" }];
    if (form.get("requested_token_type") !== ID_JAG || form.get("subject_token_type") !== ID_TOKEN) return [400, { error: "invalid_request", error_description: "Only ID tokens are exchanged, only for ID-JAGs" }];
    const audience = form.get("audience");
    const clientIdThere = audience ? client.clientIdAt[audience] : undefined;
    if (!audience || !clientIdThere) return [400, { error: "invalid_target", error_description: "This client is not allowed at that audience" }];
    // The audience and resource must be a pair it knows (the extension's §7.6.1): here, one origin.
    const resource = form.get("resource");
    if (resource && (originOf(resource) === undefined || originOf(resource) !== originOf(audience))) {
      return [400, { error: "invalid_target", error_description: "That resource is not served by that audience" }];
    }
    let subject: JWTPayload;
    try {
      // The ID token must be this identity provider's, issued to the client that presents it.
      ({ payload: subject } = await jwtVerify(form.get("subject_token") ?? "", keys.publicKey, { issuer, audience: client.id }));
    } catch {
      return [400, { error: "invalid_grant", error_description: "The subject token is not a valid ID token for this client" }];
    }
    const scope = form.get("scope") ?? undefined;
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = {
      iss: issuer,
      sub: subject.sub,
      aud: audience,
      client_id: clientIdThere,
      jti: randomUUID(),
      iat: now,
      exp: now + ID_JAG_LIFETIME_S,
      ...(resource ? { resource } : {}),
      ...(scope ? { scope } : {}),
      ...(typeof subject.email === "string" ? { email: subject.email } : {}),
    };
    issued.push(claims);
    return [200, { issued_token_type: ID_JAG, access_token: await sign(claims, "oauth-id-jag+jwt"), token_type: "N_A", expires_in: ID_JAG_LIFETIME_S, ...(scope ? { scope } : {}) }];
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://idp").pathname;
    const send = (status: number, body: object) => {
      response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
    };
    if (request.method === "GET" && (path === "/.well-known/oauth-authorization-server" || path === "/.well-known/openid-configuration")) return send(200, metadata());
    if (request.method === "GET" && path === "/jwks") return send(200, jwks);
    if (request.method === "POST" && path === "/token") {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const [status, body] = await exchange(new URLSearchParams(Buffer.concat(chunks).toString()), request.headers.authorization);
      return send(status, body);
    }
    send(404, { error: "not_found" });
  }

  const server = createServer((request, response) => void handle(request, response).catch(() => response.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  return {
    issuer,
    origin,
    route: { [new URL(issuer).origin]: origin },
    fetch: ((input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.origin === new URL(issuer).origin) return fetch(new URL(url.pathname + url.search, origin), init);
      return fetch(input, init);
    }) as typeof fetch,
    addClient: (client) => void clients.set(client.id, client),
    idToken: (user, clientId, claims = {}) =>
      sign({ ...claims, iss: issuer, sub: user, aud: clientId, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + ID_TOKEN_LIFETIME_S }, "JWT"),
    assertion: (claims, { key, typ = "oauth-id-jag+jwt" } = {}) => sign({ iss: issuer, ...claims }, typ, key),
    strangerKey: stranger.privateKey,
    issued,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** RFC 6749 §2.3.1: `id:secret`, each form-urlencoded, in base64. */
function basicCredentials(encoded: string): [string, string] {
  const decoded = Buffer.from(encoded, "base64").toString();
  const colon = decoded.indexOf(":");
  const part = (text: string) => decodeURIComponent(text.replaceAll("+", " "));
  return colon < 0 ? [part(decoded), ""] : [part(decoded.slice(0, colon)), part(decoded.slice(colon + 1))];
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
