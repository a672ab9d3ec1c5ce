/**
 * Enterprise sign-in to the OAuth example (the MCP Enterprise-Managed Authorization extension): a
 * real identity provider on loopback (`enterpriseIdp.ts`) gives alice's MCP client an ID token and,
 * by token exchange, an ID-JAG; the v2 SDK's `CrossAppAccessProvider` trades it at the example's
 * `/token` for an access token, and her notes are hers in every era. Forged, expired,
 * wrong-audience and replayed assertions, a client not allowed and an unauthenticated one are
 * refused as the specs say.
 *
 * The clients are registered at the authorization server first (dynamic registration), then the
 * server restarts on the same storage with `ENTERPRISE_IDP` naming the one allowed: that is how an
 * operator does it. The identity provider's https origin is routed to loopback by `startServer`'s
 * `outbound`. Runs on workerd and on Deno (contract-deno: the example's Deno entry, its grants in
 * Deno KV); not on Node, which has no KV namespace for the authorization server.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ModernClient, CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, DpopSession, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { consentUserId, enterpriseUserId } from "../../example/oauth/userIds.ts";
import { type EnterpriseIdp, startEnterpriseIdp } from "../support/enterpriseIdp.ts";
import { connectWithOAuth, HeadlessOAuthProvider } from "../support/headlessOAuth.ts";

const ENTRY = { entry: "example/oauth/worker.ts", config: "example/oauth/wrangler.toml" };
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** The MCP client's own registration at the identity provider (its SSO client). */
const AT_IDP = { id: "mcp-client-at-idp", secret: "idp-secret" };
const OTHER_AT_IDP = { id: "other-client-at-idp", secret: "other-idp-secret" };

interface Registered {
  client_id: string;
  client_secret: string;
}

let idp: EnterpriseIdp;
let dir: string;
let server: Awaited<ReturnType<typeof startServer>>;
/** Allowed by ENTERPRISE_IDP, and one that is registered but not allowed. */
let allowed: Registered;
let notAllowed: Registered;
let metadataBefore: Record<string, unknown>;
let refusedBefore: { status: number; body: unknown };

const register = async (url: string, name: string): Promise<Registered> => {
  const response = await fetch(`${url}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: ["https://client.example/callback"], token_endpoint_auth_method: "client_secret_basic" }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Registered;
};

beforeAll(async () => {
  idp = await startEnterpriseIdp();
  dir = await mkdtemp(join(tmpdir(), "enterprise-sign-in-"));
  const first = await startServer({ ...ENTRY, vars: { LOG_LEVEL: "error" }, persistDir: dir });
  try {
    metadataBefore = (await (await fetch(`${first.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    allowed = await register(first.url, "enterprise client");
    notAllowed = await register(first.url, "some other client");
    const response = await fetch(`${first.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${allowed.client_id}:${allowed.client_secret}`)}` },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: "a.b.c" }),
    });
    refusedBefore = { status: response.status, body: await response.json() };
  } finally {
    await first.dispose();
  }
  const ENTERPRISE_IDP = JSON.stringify({ issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks`, clients: [allowed.client_id] });
  // The provider logs each refused token request; the refusals here are on purpose.
  server = await startServer({ ...ENTRY, vars: { LOG_LEVEL: "error", ENTERPRISE_IDP }, persistDir: dir, outbound: idp.route, captureLogs: true });
  idp.addClient({ ...AT_IDP, clientIdAt: { [server.url]: allowed.client_id } });
  idp.addClient({ ...OTHER_AT_IDP, clientIdAt: { [server.url]: notAllowed.client_id } });
});
afterAll(async () => {
  await server?.dispose();
  await idp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const notes = (text: string) => ({ name: "notepad", arguments: text ? { action: "add", text } : { action: "list" } });

/** The v2 SDK's Cross-App Access provider, signed in at the identity provider as `user`; with `dpop`, asking for tokens bound to its key. */
function crossAppAccess(user: string, dpop?: DpopSession): CrossAppAccessProvider {
  const Provider = dpop === undefined ? CrossAppAccessProvider : class extends CrossAppAccessProvider {
    dpop(): DpopSession {
      return dpop;
    }
  };
  return new Provider({
    assertion: async (ctx) => {
      const { jwtAuthGrant } = await discoverAndRequestJwtAuthGrant({
        idpUrl: idp.issuer,
        audience: ctx.authorizationServerUrl,
        resource: ctx.resourceUrl,
        idToken: await idp.idToken(user, AT_IDP.id, { email: `${user}@enterprise.test` }),
        clientId: AT_IDP.id,
        clientSecret: AT_IDP.secret,
        scope: ctx.scope,
        fetchFn: idp.fetch,
      });
      return jwtAuthGrant;
    },
    clientId: allowed.client_id,
    clientSecret: allowed.client_secret,
    expectedIssuer: server.url,
  });
}

async function modernAs(user: string, dpop?: DpopSession): Promise<{ client: ModernClient; provider: CrossAppAccessProvider }> {
  const provider = crossAppAccess(user, dpop);
  const client = new ModernClient({ name: "enterprise-v2", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } } as never);
  await client.connect(new ModernTransport(new URL(`${server.url}/mcp`), { authProvider: provider }));
  return { client, provider };
}

/** A 2025 session (SDK v1) carrying `token`. */
async function sessionWith(token: string): Promise<Client> {
  const client = new Client({ name: "enterprise-v1", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A JWT bearer grant request to `/token`, the client authenticated with HTTP Basic unless `auth` is false. */
function tokenRequest(assertion: string, client: Registered = allowed, { auth = true } = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  const body = new URLSearchParams({ grant_type: JWT_BEARER, assertion, scope: "mcp" });
  if (auth) headers.authorization = `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`)}`;
  else body.set("client_id", client.client_id);
  return fetch(`${server.url}/token`, { method: "POST", headers, body });
}

/** ID-JAG claims as the identity provider would issue them for the allowed client, with `overrides`. */
function claims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { sub: "alice", aud: server.url, client_id: allowed.client_id, resource: `${server.url}/mcp`, scope: "mcp", jti: crypto.randomUUID(), iat: now, exp: now + 120, ...overrides };
}

describe("enterprise sign-in (ID-JAG) to the OAuth example", () => {
  it("offers the JWT bearer grant and the ID-JAG profile only when ENTERPRISE_IDP is set", async () => {
    expect(metadataBefore.grant_types_supported).not.toContain(JWT_BEARER);
    expect(refusedBefore).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } });
    const after = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(after.grant_types_supported).toContain(JWT_BEARER);
    expect(after.authorization_grant_profiles_supported).toContain("urn:ietf:params:oauth:grant-profile:id-jag");
  });

  it("alice signs in through her identity provider with the v2 client over 2026-07-28; her notes are hers over a 2025 session too, not bob's", async () => {
    const { client, provider } = await modernAs("alice");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(idp.issued.at(-1)).toMatchObject({ sub: "alice", aud: server.url, client_id: allowed.client_id, resource: `${server.url}/mcp`, scope: "mcp" });
    const me = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} })));
    expect(me).toEqual({
      issuer: server.url,
      subject: enterpriseUserId(idp.issuer, "alice"),
      scopes: ["mcp"],
      props: { enterprise: { issuer: idp.issuer, subject: "alice", email: "alice@enterprise.test" } },
      client: allowed.client_id,
    });
    expect(textOf(await client.callTool(notes("from the enterprise, over 2026-07-28")))).toBe("Noted. The pad has 1 note(s).");
    await client.close();

    const session = await sessionWith(provider.tokens()!.access_token);
    expect((session.transport as StreamableHTTPClientTransport).protocolVersion).toBe("2025-11-25");
    expect(textOf(await session.callTool(notes("and over a session")))).toBe("Noted. The pad has 2 note(s).");
    expect(textOf(await session.callTool(notes("")))).toBe("1. from the enterprise, over 2026-07-28\n2. and over a session");
    await session.close();

    const { client: bob } = await modernAs("bob");
    expect(JSON.parse(textOf(await bob.callTool({ name: "whoami", arguments: {} }))).subject).toBe(enterpriseUserId(idp.issuer, "bob"));
    expect(textOf(await bob.callTool(notes("")))).toBe("The note pad is empty.");
    await bob.close();
  });

  it("binds alice's token to her client's DPoP key when the exchange carries a proof: calls are signed, and the token alone is refused", async () => {
    const dpop = await DpopSession.create();
    const { client, provider } = await modernAs("alice", dpop);
    expect(provider.tokens()?.token_type).toBe("DPoP");
    expect(JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} })))).toMatchObject({ subject: enterpriseUserId(idp.issuer, "alice"), props: { cnf: { jkt: dpop.thumbprint } } });
    await client.close();
    const stolen = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${provider.tokens()!.access_token}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
    expect(stolen.status).toBe(401);
    expect(stolen.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("a person who types alice's enterprise user id into the consent page gets a home of their own", async () => {
    const pretender = enterpriseUserId(idp.issuer, "alice");
    const provider = new HeadlessOAuthProvider({ expectedIssuer: server.url, typed: { user: pretender } });
    const { client } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider });
    expect(JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))).subject).toBe(consentUserId(pretender));
    expect(consentUserId(pretender)).not.toBe(pretender);
    expect(textOf(await client.callTool(notes("")))).toBe("The note pad is empty.");
    await client.close();
  });

  it("accepts an assertion once: the same ID-JAG again is refused 400 invalid_grant", async () => {
    const assertion = await idp.assertion(claims());
    const first = await tokenRequest(assertion);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ token_type: "bearer", scope: "mcp" });
    const again = await tokenRequest(assertion);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
  });

  // RFC 7521 §5.2 and RFC 7523 §3.1: an assertion that is not valid (signature, audience, expiry)
  // is refused with invalid_grant; the extension (§7.6.2) says the same for a wrong `aud`.
  it.each([
    ["forged (signed by a key not in the identity provider's set)", () => idp.assertion(claims(), { key: idp.strangerKey })],
    ["expired", () => idp.assertion(claims({ iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 300 }))],
    ["for another authorization server (aud)", () => idp.assertion(claims({ aud: "https://another-as.example" }))],
    ["of another type (typ JWT: an ID token is not a grant)", () => idp.assertion(claims(), { typ: "JWT" })],
    ["naming another client than the one authenticated", () => idp.assertion(claims({ client_id: notAllowed.client_id }))],
  ])("refuses an assertion %s with 400 invalid_grant", async (_, make) => {
    const response = await tokenRequest(await make());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a registered client not listed for the issuer with 400 invalid_grant, even with an assertion made out to it", async () => {
    // RFC 6749 §5.2 would call a client barred from a grant type unauthorized_client; the provider
    // answers every trust failure of an assertion (issuer or client not trusted) with invalid_grant,
    // so a caller cannot tell which it was.
    const response = await tokenRequest(await idp.assertion(claims({ client_id: notAllowed.client_id })), notAllowed);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_grant" });
    // Its own identity provider client gets an ID-JAG for it, and it is refused all the same.
    const { jwtAuthGrant } = await discoverAndRequestJwtAuthGrant({
      idpUrl: idp.issuer,
      audience: server.url,
      resource: `${server.url}/mcp`,
      idToken: await idp.idToken("alice", OTHER_AT_IDP.id),
      clientId: OTHER_AT_IDP.id,
      clientSecret: OTHER_AT_IDP.secret,
      scope: "mcp",
      fetchFn: idp.fetch,
    });
    const exchanged = await tokenRequest(jwtAuthGrant, notAllowed);
    expect(exchanged.status).toBe(400);
    expect(await exchanged.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a client that does not authenticate with 401 invalid_client (the grant is for confidential clients)", async () => {
    const response = await tokenRequest(await idp.assertion(claims()), allowed, { auth: false });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "invalid_client" });
  });

  it("refuses an assertion for another resource with 400 invalid_target (the provider's code; the extension asks for invalid_grant)", async () => {
    const response = await tokenRequest(await idp.assertion(claims({ resource: "https://elsewhere.example/mcp" })));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_target" });
  });

  it("refuses an assertion without the mcp scope with 400 invalid_grant", async () => {
    const response = await tokenRequest(await idp.assertion(claims({ scope: "scores:admin" })));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("the OAuth example with a malformed ENTERPRISE_IDP", () => {
  const vars = { LOG_LEVEL: "error", ENTERPRISE_IDP: JSON.stringify({ issuer: "http://idp.example", jwks_uri: "https://idp.example/keys", clients: ["c"] }) };
  const sentence = 'ENTERPRISE_IDP.issuer must be an https URL (got "http://idp.example")';

  it("says so, naming the field: a Worker answers 500 with the sentence at /token and at /mcp; Deno refuses to start with it", async () => {
    // Deno reads its authorization options when it starts, a Worker with its first request.
    if (process.env.RUNTIME === "deno") return expect(startServer({ ...ENTRY, vars })).rejects.toThrow(sentence);
    const broken = await startServer({ ...ENTRY, vars, captureLogs: true });
    try {
      const token = await fetch(`${broken.url}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
      expect(token.status).toBe(500);
      expect(await token.json()).toEqual({ error: "server_error", error_description: sentence });
      const mcp = await fetch(`${broken.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
      expect(mcp.status).toBe(500);
      expect(((await mcp.json()) as { error: { message: string } }).error.message).toContain(sentence);
    } finally {
      await broken.dispose();
    }
  });
});
