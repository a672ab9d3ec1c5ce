/**
 * Service clients of the OAuth example (`example/oauth/`, the client credentials grant): the
 * official SDKs' own machine-to-machine providers — v2's `ClientCredentialsProvider` and
 * `PrivateKeyJwtProvider`, v1's `ClientCredentialsProvider` — sign in with no person present and
 * call tools as `service:<client_id>`, whose `notepad` is in a home of its own (a person's notes
 * are not seen, and `deleteUserData` for it erases it); every refusal of the token endpoint by raw
 * HTTP, with the status, error and headers RFC 6749 §5.2, RFC 7523 and RFC 8707 name.
 *
 * Workerd and Deno (contract-deno): everything goes over HTTP to `server.url`, the erasure through
 * the fixture's route (`test/fixtures/oauth/erasingWorker.ts`, on Deno `erasingDeno.ts`). Not on
 * Node, which has no KV namespace for the example's authorization server.
 */
import { ClientCredentialsProvider as ModernClientCredentials, Client as ModernClient, DpopSession, PrivateKeyJwtProvider, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { connectWithOAuth, HeadlessOAuthProvider } from "../support/headlessOAuth.ts";
import { BOTH, initialize, postJson } from "../support/httpSession.ts";

const REPORTER_SECRET = "reporter secret: correct horse battery staple";
const ADMIN_SECRET = "admin+bot/secret=with:reserved&characters";
const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");
const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const MAX_SESSIONS = 3;

let server: Awaited<ReturnType<typeof startServer>>;
let signerKey: { privateKey: CryptoKey; privateJwk: JWK };
let strangerKey: CryptoKey;

beforeAll(async () => {
  const signer = await generateKeyPair("ES256", { extractable: true });
  signerKey = { privateKey: signer.privateKey, privateJwk: await exportJWK(signer.privateKey) };
  strangerKey = (await generateKeyPair("ES256")).privateKey;
  const clients = [
    { client_id: "reporter", scopes: ["mcp"], secret_sha256: sha256Hex(REPORTER_SECRET) },
    { client_id: "admin-bot", scopes: ["mcp", "scores:admin"], secret_sha256: sha256Hex(ADMIN_SECRET) },
    { client_id: "counted", scopes: ["mcp"], secret_sha256: sha256Hex(REPORTER_SECRET) },
    { client_id: "signer", scopes: ["mcp"], jwks: { keys: [{ ...(await exportJWK(signer.publicKey)), kid: "signer-1" }] } },
  ];
  server = await startServer({
    entry: "test/fixtures/oauth/erasingWorker.ts",
    config: "example/oauth/wrangler.toml",
    // The provider logs each refusal of its own (an unsupported grant): kept, not printed.
    captureLogs: true,
    vars: {
      LOG_LEVEL: "error",
      SERVICE_CLIENTS: JSON.stringify(clients),
      REQUEST_STATE_SECRET: "a test secret of at least thirty-two characters",
      // Small, so a service's fair share is reached in a few requests.
      MAX_SESSIONS_PER_CLIENT: String(MAX_SESSIONS),
    },
  });
});
afterAll(() => server?.dispose());

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const notes = (text: string) => ({ name: "notepad", arguments: text ? { action: "add", text } : { action: "list" } });
const whoami = { name: "whoami", arguments: {} };

/** A v2 client signed in by `provider` (the transport fetches the token on the first 401). */
async function modern(authProvider: ModernClientCredentials | PrivateKeyJwtProvider) {
  const client = new ModernClient({ name: "service", version: "1" }, { versionNegotiation: { mode: "auto" } } as never);
  await client.connect(new ModernTransport(new URL(`${server.url}/mcp`), { authProvider }));
  return client;
}

/** POST /token, form-encoded. */
function token(params: Record<string, string | string[]>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) for (const one of [value].flat()) body.append(name, one);
  return fetch(`${server.url}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body });
}

const basic = (id: string, secret: string) => ({ authorization: `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}` });

/** An assertion `signer` signs for this server, with `claims` and `header` changed. */
async function assertion(claims: Record<string, unknown> = {}, { key = signerKey.privateKey, header = {} as Record<string, unknown> } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: "signer", sub: "signer", aud: server.url, iat: now, exp: now + 60, jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "JWT", ...header })
    .sign(key);
}

/** The refusal's status and body, checked to be JSON and not stored. */
async function refused(response: Response) {
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as { error: string; error_description?: string };
  return { status: response.status, error: body.error, description: body.error_description, challenge: response.headers.get("www-authenticate") };
}

describe("the OAuth example's service clients (client credentials)", () => {
  it("names the grant, its authentication methods and assertion algorithms in the authorization server metadata", async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token", "client_credentials"]));
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]));
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(["RS256", "ES256"]));
  });

  it("v2's ClientCredentialsProvider signs in as service:reporter, whose notepad is its own: a person's notes unseen, and deleteUserData erases it", async () => {
    const { client: alice } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider: new HeadlessOAuthProvider({ expectedIssuer: server.url, typed: { user: "alice" } }) });
    expect(textOf(await alice.callTool(notes("alice's own note")))).toBe("Noted. The pad has 1 note(s).");

    const reporter = await modern(new ModernClientCredentials({ clientId: "reporter", clientSecret: REPORTER_SECRET, expectedIssuer: server.url }));
    expect(JSON.parse(textOf(await reporter.callTool(whoami)))).toEqual({ issuer: server.url, subject: "service:reporter", scopes: ["mcp"], client: "reporter" });
    expect(textOf(await reporter.callTool(notes("")))).toBe("The note pad is empty.");
    expect(textOf(await reporter.callTool(notes("nightly report sent")))).toBe("Noted. The pad has 1 note(s).");
    expect(textOf(await reporter.callTool(notes("")))).toBe("1. nightly report sent");
    await reporter.close();

    const erased = await fetch(`${server.url}/test/delete-user-data`, { method: "POST", body: JSON.stringify({ issuer: server.url, subject: "service:reporter" }) });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toEqual({ sessions: expect.any(Number), tasks: 0 });
    const again = await modern(new ModernClientCredentials({ clientId: "reporter", clientSecret: REPORTER_SECRET, expectedIssuer: server.url }));
    expect(textOf(await again.callTool(notes("")))).toBe("The note pad is empty.");
    await again.close();
    // The person's home is not the service's: her note is still there.
    expect(textOf(await alice.callTool(notes("")))).toBe("1. alice's own note");
    await alice.close();
  });

  it("v2's PrivateKeyJwtProvider signs in as service:signer (private_key_jwt), in a home apart from the other service's", async () => {
    const provider = new PrivateKeyJwtProvider({ clientId: "signer", privateKey: signerKey.privateJwk, algorithm: "ES256", expectedIssuer: server.url });
    const signer = await modern(provider);
    expect(JSON.parse(textOf(await signer.callTool(whoami)))).toMatchObject({ subject: "service:signer", scopes: ["mcp"], client: "signer" });
    expect(textOf(await signer.callTool(notes("signed in with a key")))).toBe("Noted. The pad has 1 note(s).");
    expect(provider.tokens()?.refresh_token).toBeUndefined();
    await signer.close();
  });

  it("v1's ClientCredentialsProvider signs in over a 2025 session, and gets the scopes it asks for that it may have", async () => {
    const client = new Client({ name: "v1-service", version: "1" });
    const authProvider = new ClientCredentialsProvider({ clientId: "admin-bot", clientSecret: ADMIN_SECRET, scope: "mcp scores:admin", expectedIssuer: server.url });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider }));
    expect(JSON.parse(textOf(await client.callTool(whoami)))).toMatchObject({ subject: "service:admin-bot", scopes: ["mcp", "scores:admin"] });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("scoreboard");
    expect(JSON.parse(textOf(await client.callTool({ name: "scoreboard", arguments: {} })))).toMatchObject({ lisi: 80 });
    await client.close();
  });

  it(`counts a service's sessions as its own fair share, as any user's: past ${MAX_SESSIONS}, 429 while another client is served; a session ended gives its slot back`, async () => {
    const bearer = async (client_id: string, secret: string) => {
      const answer = (await (await token({ grant_type: "client_credentials", client_id, client_secret: secret })).json()) as { access_token: string };
      return { "content-type": "application/json", accept: BOTH, authorization: `Bearer ${answer.access_token}` };
    };
    const counted = await bearer("counted", REPORTER_SECRET);
    const open = () => postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: counted });
    const held: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) {
      const opened = await open();
      expect(opened.status).toBe(200);
      held.push(opened.headers.get("mcp-session-id")!);
      await opened.body?.cancel();
    }
    const over = await open();
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain("MAX_SESSIONS_PER_CLIENT");
    const other = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: await bearer("admin-bot", ADMIN_SECRET) });
    expect(other.status).toBe(200);
    await other.body?.cancel();
    const ended = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: { ...counted, "mcp-session-id": held[0]!, "mcp-protocol-version": "2025-11-25" } });
    expect(ended.status).toBe(204);
    const again = await open();
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it("binds a service's token to its DPoP key when the token request carries a proof: the v2 client signs every call, and the token alone is refused", async () => {
    const session = await DpopSession.create();
    class DpopClientCredentials extends ModernClientCredentials {
      dpop(): DpopSession {
        return session;
      }
    }
    const provider = new DpopClientCredentials({ clientId: "reporter", clientSecret: REPORTER_SECRET, expectedIssuer: server.url });
    const reporter = await modern(provider);
    expect(JSON.parse(textOf(await reporter.callTool(whoami))).subject).toBe("service:reporter");
    const tokens = await provider.tokens();
    expect(tokens?.token_type).toBe("DPoP");
    const stolen = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, authorization: `Bearer ${tokens!.access_token}` } });
    expect(stolen.status).toBe(401);
    expect(stolen.headers.get("www-authenticate")).toContain('error="invalid_token"');
    await reporter.close();
  });

  it("answers a short-lived bearer token without a refresh token, for the resource asked for only", async () => {
    const response = await token({ grant_type: "client_credentials", client_id: "reporter", client_secret: REPORTER_SECRET, resource: `${server.url}/sse`, scope: "mcp scores:admin" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ token_type: "Bearer", expires_in: 600, scope: "mcp" });
    expect(answer).not.toHaveProperty("refresh_token");
    const atMcp = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, authorization: `Bearer ${answer.access_token}` } });
    expect(atMcp.status).toBe(401);
    expect(atMcp.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const opened = await fetch(`${server.url}/sse`, { headers: { accept: "text/event-stream", authorization: `Bearer ${answer.access_token}` } });
    expect(opened.status).toBe(200);
    await opened.body?.cancel();
    // A token whose signature is not this server's.
    const forged = `${String(answer.access_token).slice(0, -4)}AAAA`;
    const atSse = await fetch(`${server.url}/sse`, { headers: { accept: "text/event-stream", authorization: `Bearer ${forged}` } });
    expect(atSse.status).toBe(401);
    await atSse.body?.cancel();
  });

  it("refuses a client whose secret is wrong (401 invalid_client, with a Basic challenge where Basic was tried) or that is unknown", async () => {
    expect(await refused(await token({ grant_type: "client_credentials" }, basic("reporter", "not the secret")))).toMatchObject({ status: 401, error: "invalid_client", challenge: expect.stringMatching(/^Basic realm=/) });
    expect(await refused(await token({ grant_type: "client_credentials", client_id: "reporter", client_secret: "not the secret" }))).toMatchObject({ status: 401, error: "invalid_client", challenge: null });
    expect(await refused(await token({ grant_type: "client_credentials", client_id: "nobody", client_secret: "x" }))).toMatchObject({ status: 401, error: "invalid_client" });
    expect(await refused(await token({ grant_type: "client_credentials" }))).toMatchObject({ status: 401, error: "invalid_client" });
    expect(await refused(await token({ grant_type: "client_credentials" }, { authorization: "Basic %%%" }))).toMatchObject({ status: 401, error: "invalid_client", challenge: expect.stringMatching(/^Basic/) });
    // A secret client presenting an assertion, and the key client presenting a secret.
    expect(await refused(await token({ grant_type: "client_credentials", client_id: "signer", client_secret: "x" }))).toMatchObject({ status: 401, error: "invalid_client" });
    // Secrets with reserved characters arrive form-encoded in Basic (RFC 6749 §2.3.1).
    expect((await token({ grant_type: "client_credentials" }, basic("admin-bot", ADMIN_SECRET))).status).toBe(200);
  });

  it("refuses two ways of authenticating at once and repeated parameters (400 invalid_request)", async () => {
    expect(await refused(await token({ grant_type: "client_credentials", client_secret: REPORTER_SECRET }, basic("reporter", REPORTER_SECRET)))).toMatchObject({ status: 400, error: "invalid_request" });
    expect(await refused(await token({ grant_type: "client_credentials", client_id: "reporter", client_secret: REPORTER_SECRET, scope: ["mcp", "mcp"] }))).toMatchObject({ status: 400, error: "invalid_request" });
  });

  it("refuses a client the provider registered for a person's sign-in (400 unauthorized_client), and other grants as the provider does", async () => {
    const registered = await fetch(`${server.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:33418/callback"], token_endpoint_auth_method: "client_secret_basic", client_name: "a person's app" }),
    });
    const { client_id, client_secret } = (await registered.json()) as { client_id: string; client_secret: string };
    expect(await refused(await token({ grant_type: "client_credentials" }, basic(client_id, client_secret)))).toMatchObject({ status: 400, error: "unauthorized_client" });
    const password = await token({ grant_type: "password", username: "a", password: "b" }, basic(client_id, client_secret));
    expect(password.status).toBe(400);
    expect(((await password.json()) as { error: string }).error).toBe("unsupported_grant_type");
  });

  it("refuses scopes the client may not have (invalid_scope) and resources this server is not (invalid_target)", async () => {
    const asReporter = { grant_type: "client_credentials", client_id: "reporter", client_secret: REPORTER_SECRET };
    expect(await refused(await token({ ...asReporter, scope: "scores:admin" }))).toMatchObject({ status: 400, error: "invalid_scope" });
    expect(await refused(await token({ ...asReporter, scope: "unknown" }))).toMatchObject({ status: 400, error: "invalid_scope" });
    expect(await refused(await token({ ...asReporter, resource: "https://elsewhere.example/mcp" }))).toMatchObject({ status: 400, error: "invalid_target" });
    expect(await refused(await token({ ...asReporter, resource: [`${server.url}/mcp`, `${server.url}/sse`] }))).toMatchObject({ status: 400, error: "invalid_target" });
  });

  it("takes a client assertion once; refuses it replayed, expired, living too long, for another audience, from another key or algorithm", async () => {
    const asSigner = (client_assertion: string) => ({ grant_type: "client_credentials", client_assertion_type: ASSERTION_TYPE, client_assertion });
    const once = await assertion();
    expect((await token(asSigner(once))).status).toBe(200);
    const replayed = await refused(await token(asSigner(once)));
    expect(replayed).toMatchObject({ status: 401, error: "invalid_client" });
    expect(replayed.description).toMatch(/used before/);
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Promise<string>][] = [
      ["expired", assertion({ iat: now - 600, exp: now - 300 })],
      ["living too long", assertion({ exp: now + 3600 })],
      ["for another audience", assertion({ aud: "https://elsewhere.example" })],
      ["about another subject", assertion({ sub: "reporter" })],
      ["signed by another key", assertion({}, { key: strangerKey })],
      ["without a jti", assertion({ jti: undefined })],
      ["typed, with the token endpoint as its audience", assertion({ aud: `${server.url}/token` }, { header: { typ: "client-authentication+jwt" } })],
    ];
    for (const [why, made] of cases) {
      const answer = await refused(await token(asSigner(await made)));
      expect({ why, ...answer }).toMatchObject({ why, status: 401, error: "invalid_client" });
    }
    // The token endpoint as the audience is acceptable on a plain one (RFC 7523 §3).
    expect((await token(asSigner(await assertion({ aud: `${server.url}/token` })))).status).toBe(200);
    const hmac = await new SignJWT({ iss: "signer", sub: "signer", aud: server.url, exp: now + 60, jti: crypto.randomUUID() }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("x".repeat(32)));
    expect(await refused(await token(asSigner(hmac)))).toMatchObject({ status: 401, error: "invalid_client" });
    expect(await refused(await token({ ...asSigner(await assertion()), client_assertion_type: "urn:example:other" }))).toMatchObject({ status: 401, error: "invalid_client" });
  });
});

describe("the OAuth example without SERVICE_CLIENTS", () => {
  let bare: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    bare = await startServer({ entry: "example/oauth/worker.ts", config: "example/oauth/wrangler.toml", captureLogs: true, vars: { LOG_LEVEL: "error" } });
  });
  afterAll(() => bare?.dispose());

  it("neither names nor grants client credentials: the provider refuses them as before", async () => {
    const metadata = (await (await fetch(`${bare.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(metadata.grant_types_supported).not.toContain("client_credentials");
    const response = await fetch(`${bare.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...basic("reporter", REPORTER_SECRET) },
      body: new URLSearchParams({ grant_type: "client_credentials" }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_client");
  });
});
