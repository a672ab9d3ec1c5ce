/**
 * The OAuth example (`example/oauth/`) as the official SDK clients meet it: each completes the
 * whole flow with its own OAuth support — discovery from the 401, dynamic registration, the
 * consent form submitted as a person would (`headlessOAuth.ts`), code + PKCE S256, the token —
 * then lists and calls tools, and refreshes when its access token stops working. The official
 * referee's authorization-server scenarios run against it too. On workerd (miniflare simulates
 * the provider's KV namespace and the example's rate-limiting bindings) and on Deno
 * (`example/oauth/deno.ts`: the same provider, its grants in Deno KV).
 */
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as ModernClient, DpopSession } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReferee } from "../../scripts/referee.mjs";
import { startServer } from "../../scripts/startServer.mjs";
import { freePort } from "../support/freePort.ts";
import { approve, connectModernWithOAuth, connectSseWithOAuth, connectWithOAuth, HeadlessOAuthProvider } from "../support/headlessOAuth.ts";
import { BOTH, initialize, postJson } from "../support/httpSession.ts";
import { sendUntilRefused } from "../support/testIssuer.ts";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  // On Deno the address rate limits count is the socket's peer, 127.0.0.1 for every request here: as
  // behind a proxy, the server reads it from the header the tests send, which on Workers is the edge's.
  const proxied: Record<string, string> = process.env.RUNTIME === "deno" ? { TRUST_PROXY: "cf-connecting-ip" } : {};
  server = await startServer({ entry: "example/oauth/worker.ts", config: "example/oauth/wrangler.toml", vars: { LOG_LEVEL: "error", ...proxied } });
});
afterAll(() => server?.dispose());

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe("the OAuth example with the SDK clients", () => {
  it("v1 over Streamable HTTP: authorizes, lists (without the scoped tool), calls whoami, and refreshes", async () => {
    const provider = new HeadlessOAuthProvider({ expectedIssuer: server.url });
    const { client } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider });
    expect(provider.authorizations).toBe(1);
    expect(provider.authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(provider.authorizationUrl?.searchParams.get("resource")).toBe(`${server.url}/mcp`);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("whoami");
    expect(names).not.toContain("scoreboard");
    const me = JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} })));
    expect(me).toMatchObject({ issuer: server.url, subject: "demo", scopes: ["mcp"], props: { user: "demo" } });
    // An access token that stops working (expired, revoked) is refreshed, not authorized again.
    provider.storedTokens = { ...provider.storedTokens!, access_token: "demo:expired:token" };
    expect(textOf(await client.callTool({ name: "toUpperCase", arguments: { input: "refreshed" } }))).toBe("REFRESHED");
    expect(provider.tokenSaves).toBe(2);
    expect(provider.authorizations).toBe(1);
    await client.close();
  });

  it("v1 over HTTP+SSE (legacy): authorizes for the /sse resource and calls a tool", async () => {
    const provider = new HeadlessOAuthProvider({ expectedIssuer: server.url });
    const { client } = await connectSseWithOAuth(new URL(`${server.url}/sse`), { provider });
    expect(provider.authorizationUrl?.searchParams.get("resource")).toBe(`${server.url}/sse`);
    expect(JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))).subject).toBe("demo");
    await client.close();
  });

  it("v2: authorizes (checking iss itself), lists and calls", async () => {
    const client = new ModernClient({ name: "v2-oauth", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } } as never);
    const { provider } = await connectModernWithOAuth(new URL(`${server.url}/mcp`), { client });
    expect(provider.callback?.get("iss")).toBe(server.url);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("whoami");
    expect(textOf(await client.callTool({ name: "getScore", arguments: { name: "lisi" } }))).toBe('"80.0"');
    await client.close();
  });

  it("keeps each signed-in person's notes in their own home: alice's from 2026-07-28 read back over a 2025 session and HTTP+SSE, bob's apart", async () => {
    const as = (user: string) => new HeadlessOAuthProvider({ expectedIssuer: server.url, typed: { user } });
    const notes = (text: string) => ({ name: "notepad", arguments: text ? { action: "add", text } : { action: "list" } });
    const modern = new ModernClient({ name: "v2-oauth", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } } as never);
    await connectModernWithOAuth(new URL(`${server.url}/mcp`), { client: modern, provider: as("alice") });
    expect(textOf(await modern.callTool(notes("written over 2026-07-28")))).toBe("Noted. The pad has 1 note(s).");
    await modern.close();
    const { client: session } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider: as("alice") });
    expect(textOf(await session.callTool(notes("and over a session")))).toBe("Noted. The pad has 2 note(s).");
    await session.close();
    const { client: legacy } = await connectSseWithOAuth(new URL(`${server.url}/sse`), { provider: as("alice") });
    expect(textOf(await legacy.callTool(notes("")))).toBe("1. written over 2026-07-28\n2. and over a session");
    await legacy.close();
    const { client: bob } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider: as("bob") });
    expect(JSON.parse(textOf(await bob.callTool({ name: "whoami", arguments: {} }))).subject).toBe("bob");
    expect(textOf(await bob.callTool(notes("")))).toBe("The note pad is empty.");
    await bob.close();
  });

  it("steps up: the scoped tool's 403 insufficient_scope makes the client ask the user for its scope, and the call goes through", async () => {
    const provider = new HeadlessOAuthProvider({ expectedIssuer: server.url });
    const { client } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("scoreboard");
    const refused = await postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "scoreboard", arguments: {} } }, {
      headers: { "content-type": "application/json", accept: BOTH, authorization: `Bearer ${provider.storedTokens!.access_token}`, "mcp-protocol-version": "2025-11-25", "mcp-session-id": "0".repeat(32) },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="scores:admin mcp", error="insufficient_scope"');
    await client.close();
    // Step-up as the SDK's own auth() does it for the challenge's scopes. (SDK v1's transport tries
    // this by itself on a 403, but with a refresh token at hand it refreshes the old scopes instead,
    // and gives up with "403 after trying upscoping": a client whose step-up needs the user again.)
    provider.storedTokens = undefined;
    const serverUrl = `${server.url}/mcp`;
    expect(await auth(provider, { serverUrl, scope: "scores:admin mcp" })).toBe("REDIRECT");
    expect(provider.authorizationUrl?.searchParams.get("scope")).toBe("scores:admin mcp");
    expect(await auth(provider, { serverUrl, authorizationCode: provider.takeCode() })).toBe("AUTHORIZED");
    const { client: stepped } = await connectWithOAuth(new URL(serverUrl), { provider, client: new Client({ name: "stepped-up", version: "1" }) });
    expect(provider.authorizations).toBe(2);
    expect((await stepped.listTools()).tools.map((t) => t.name)).toContain("scoreboard");
    expect(JSON.parse(textOf(await stepped.callTool({ name: "scoreboard", arguments: {} })))).toEqual({ zhangsan: 92.5, lisi: 80, wangwu: 67 });
    await stepped.close();
  });

  it("counts unauthenticated requests per address (120 per 60 s): through the Workers rate-limiting binding, or in the Deno process", async () => {
    const anonymous = () => postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, "cf-connecting-ip": "198.51.100.77" } });
    // The binding's window is the platform's (miniflare's: fixed minutes, counted from the epoch),
    // so the sends may straddle two windows: up to 120 in the first, then 121 in the next reach
    // the refusal. Go on, boundedly, until it refuses.
    const { statuses, refused } = await sendUntilRefused(anonymous, 2 * 120 + 10);
    expect(statuses.length).toBeGreaterThan(120);
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    expect(refused?.headers.get("retry-after")).toBe("60");
    expect(((await refused!.json()) as any).error.message).toMatch(/^Too many requests from this address: the limit is 120 per 60 s/);
    // Another address is not held back by it.
    const other = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, "cf-connecting-ip": "198.51.100.78" } });
    expect(other.status).toBe(401);
  });

  it("refuses a token the provider issued for another resource (another origin's /mcp) with 401", async () => {
    const elsewhere = server.url.replace("127.0.0.1", "localhost");
    const provider = new HeadlessOAuthProvider({ expectedIssuer: elsewhere });
    const { client } = await connectWithOAuth(new URL(`${elsewhere}/mcp`), { provider });
    await client.close();
    const response = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), {
      headers: { "content-type": "application/json", accept: BOTH, authorization: `Bearer ${provider.storedTokens!.access_token}` },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("the official referee's authorization-server lane against the example", () => {
  it("passes authorization-server-metadata-endpoint and authorization-code-grant (PKCE S256, resource, iss)", async () => {
    // The referee's callback listener, registered as the client's redirect URI beforehand, as its
    // instructions ask; the consent form is submitted for it as a person would.
    const port = await freePort();
    const redirect = new URL(`http://127.0.0.1:${port}/callback`);
    const registered = await fetch(`${server.url}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [redirect.href], token_endpoint_auth_method: "none", client_name: "conformance referee" }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };

    let authorizationUrl: URL | undefined;
    let delivered: Promise<void> | undefined;
    const deliver = async (url: URL) => {
      const callback = await approve(url, redirect);
      expect(callback.searchParams.get("iss")).toBe(server.url);
      expect((await fetch(callback)).status).toBe(200);
    };
    const { code, output } = await runReferee(["authorization", "--url", server.url, "--client-id", client_id, "--resource", `${server.url}/mcp`, "-p", String(port)], {
      echo: false,
      onLine: (line) => {
        if (line.startsWith(`${server.url}/authorize?`)) authorizationUrl = new URL(line.trim());
        // The referee prints the URL before its listener is up; deliver once it says it is.
        if (line.startsWith("Callback server started") && authorizationUrl) delivered = deliver(authorizationUrl);
      },
    });
    await delivered;
    expect(authorizationUrl?.searchParams.get("code_challenge_method")).toBe("S256");
    expect(output).toMatch(/^✓ authorization-server-metadata-endpoint: \d+ passed, 0 failed$/m);
    expect(output).toMatch(/^✓ authorization-code-grant: 1 passed, 0 failed$/m);
    expect(output).toMatch(/^Total: \d+ passed, 0 failed$/m);
    expect(code).toBe(0);
  }, 120_000);
});

/** A person's client that asks for DPoP-bound tokens: the v2 client signs a proof into each token request and each MCP request. */
class DpopOAuthProvider extends HeadlessOAuthProvider {
  constructor(
    readonly session: DpopSession,
    options: ConstructorParameters<typeof HeadlessOAuthProvider>[0] = {},
  ) {
    super(options);
  }
  dpop(): DpopSession {
    return this.session;
  }
}

describe("the OAuth example with DPoP-bound tokens", () => {
  /** A refresh request at `/token`, with `proof` when given. */
  const refresh = (provider: HeadlessOAuthProvider, proof?: string) =>
    fetch(`${server.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(proof && { dpop: proof }) },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: provider.storedTokens!.refresh_token!, client_id: provider.clientInfo!.client_id }),
    });

  it("names the proof algorithms in the authorization server's metadata", async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.dpop_signing_alg_values_supported).toEqual(["ES256", "EdDSA"]);
  });

  it("v2 with dpop(): completes the flow, gets token_type DPoP, calls whoami; the token alone is refused, and its refresh is bound to the key", async () => {
    const session = await DpopSession.create();
    const provider = new DpopOAuthProvider(session, { expectedIssuer: server.url });
    const client = new ModernClient({ name: "v2-dpop", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } } as never);
    await connectModernWithOAuth(new URL(`${server.url}/mcp`), { client, provider });
    expect(provider.storedTokens?.token_type).toBe("DPoP");
    expect(JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} })))).toMatchObject({ subject: "demo", props: { user: "demo", cnf: { jkt: session.thumbprint } } });

    // Stolen, the token is no use without the key: as Bearer, or as DPoP without a proof.
    const token = provider.storedTokens!.access_token;
    for (const [authorization, error] of [[`Bearer ${token}`, "invalid_token"], [`DPoP ${token}`, "invalid_dpop_proof"]] as const) {
      const refused = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: { "content-type": "application/json", accept: BOTH, authorization } });
      expect(refused.status, authorization.slice(0, 5)).toBe(401);
      expect(refused.headers.get("www-authenticate"), authorization.slice(0, 5)).toContain(`error="${error}"`);
      expect(((await refused.json()) as any).error.code).toBe(-32600);
    }

    // The refresh token of this public client is bound too: without a proof, or with another key's, it is refused.
    const other = await DpopSession.create();
    for (const proof of [undefined, await other.buildProof({ htm: "POST", htu: `${server.url}/token` })]) {
      const refused = await refresh(provider, proof);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as any).error).toBe("invalid_dpop_proof");
    }
    // With the key's own proof it works, and the client refreshes by itself after a 401, still DPoP-bound.
    provider.storedTokens = { ...provider.storedTokens!, access_token: "demo:expired:token" };
    expect(textOf(await client.callTool({ name: "toUpperCase", arguments: { input: "refreshed" } }))).toBe("REFRESHED");
    expect(provider.storedTokens?.token_type).toBe("DPoP");
    expect(provider.authorizations).toBe(1);
    await client.close();
  });

  it("refuses a bad proof at /token with 400 invalid_dpop_proof, and a replayed one", async () => {
    const session = await DpopSession.create();
    const proof = await session.buildProof({ htm: "POST", htu: `${server.url}/token` });
    const form = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&refresh_token=x&client_id=y" };
    for (const dpop of ["not-a-proof", await session.buildProof({ htm: "POST", htu: `${server.url}/register` })]) {
      const refused = await fetch(`${server.url}/token`, { ...form, headers: { ...form.headers, dpop } });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as any).error).toBe("invalid_dpop_proof");
    }
    // The first use reaches the provider (which refuses the made-up refresh token); the second never does.
    expect(((await (await fetch(`${server.url}/token`, { ...form, headers: { ...form.headers, dpop: proof } })).json()) as any).error).not.toBe("invalid_dpop_proof");
    const replayed = await fetch(`${server.url}/token`, { ...form, headers: { ...form.headers, dpop: proof } });
    expect([replayed.status, ((await replayed.json()) as any).error_description]).toEqual([400, expect.stringMatching(/used before/)]);
  });

  it("a client that sends no proof gets bearer tokens, as before", async () => {
    const provider = new HeadlessOAuthProvider({ expectedIssuer: server.url });
    const { client } = await connectWithOAuth(new URL(`${server.url}/mcp`), { provider });
    expect(provider.storedTokens?.token_type?.toLowerCase()).toBe("bearer");
    expect(JSON.parse(textOf(await client.callTool({ name: "whoami", arguments: {} }))).props).not.toHaveProperty("cnf");
    await client.close();
  });
});
