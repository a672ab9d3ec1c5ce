/**
 * The resource-server mode over real HTTP, on whichever runtime `startServer` starts (workerd;
 * Deno with RUNTIME=deno — the contract suite runs this file against both): a JWT issuer whose
 * keys this test generates (`jose`), the fixture of `test/fixtures/auth/`. Checked: the metadata
 * documents; the 401 challenge on every endpoint; forged, expired and other-audience tokens; the
 * 403 step-up for a scoped tool on every era; `ctx.auth` read from each request's own token; a
 * session answering only its own user (404 to anyone else, on every kind of request); a
 * 2026-07-28 `requestState` opening only for its user; a task (tasks extension) answering only
 * its creator, as an unknown task answers anyone else; and the rate limits' 429, `Retry-After`
 * and recovery.
 */
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, call, initialize, postJson } from "../support/httpSession.ts";
import { messagesOf } from "../support/messagesOf.ts";
import { SseReader } from "../support/SseReader.ts";
import { sendUntilRefused, type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const ENTRY = "test/fixtures/auth/authWorker.ts";
const ISSUER = "https://issuer.example";
const MODERN = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
const TASKS = "io.modelcontextprotocol/tasks";
/** `_meta` of a 2026-07-28 request that declares the tasks extension. */
const TASKS_META = { ...META, "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } } };
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** How long a listen stream may take to bring its next event before a test fails. */
const EVENT_MS = 15_000;
/** How long a listen stream is watched for an event that must not come: the same change reached another listener first. */
const QUIET_MS = 1_000;

type Server = Awaited<ReturnType<typeof startServer>>;
let issuer: TestIssuer;
let otherKey: CryptoKey;
let server: Server;

beforeAll(async () => {
  issuer = await testIssuer(ISSUER);
  otherKey = (await generateKeyPair("ES256")).privateKey;
  server = await startServer({ entry: ENTRY, vars: { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks } });
});
afterAll(() => server?.dispose());

interface TokenOptions {
  scope?: string;
  audience?: string;
  expiresIn?: string | number;
  key?: CryptoKey;
}

function token(subject: string, { scope = "mcp", audience, expiresIn, key }: TokenOptions = {}): Promise<string> {
  return issuer.sign({ sub: subject, aud: audience ?? `${server.url}/mcp`, scope }, { expiresIn, key });
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
const jsonHeaders = (extra: Record<string, string> = {}) => ({ "content-type": "application/json", accept: BOTH, ...extra });

/** A 2025-11-25 session opened with `token`: its id and the headers of its later requests. */
async function openSession(accessToken: string) {
  const response = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders(bearer(accessToken)) });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const sessionId = response.headers.get("mcp-session-id")!;
  return { sessionId, headers: (t: string) => jsonHeaders({ ...bearer(t), "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" }) };
}

async function toolText(response: Response): Promise<string> {
  const [reply] = await messagesOf(response);
  return reply.result.content[0].text;
}

describe("the protected-resource metadata", () => {
  it("is served, without a token, at the path-inserted URL and at the root, naming the issuer and scopes", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.json()).toEqual({
        resource: `${server.url}/mcp`,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp", "deploy"],
        resource_name: "auth fixture",
        dpop_signing_alg_values_supported: ["ES256", "ES384", "EdDSA", "PS256", "RS256"],
      });
    }
  });

  it("describes the legacy endpoints as a resource of their own, for clients that connect to /sse", async () => {
    const response = await fetch(`${server.url}/.well-known/oauth-protected-resource/sse`);
    expect(((await response.json()) as any).resource).toBe(`${server.url}/sse`);
    const refused = await fetch(`${server.url}/sse`, { headers: { accept: "text/event-stream" } });
    expect(refused.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/sse", scope="mcp", DPoP algs="ES256 ES384 EdDSA PS256 RS256"`);
  });
});

describe("authentication", () => {
  const challenge = () => `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="mcp", DPoP algs="ES256 ES384 EdDSA PS256 RS256"`;

  it("answers every endpoint without a token with 401 and an absolute challenge, before any session is touched", async () => {
    const requests: [string, RequestInit][] = [
      ["/mcp", { method: "POST", headers: jsonHeaders(), body: JSON.stringify(initialize(0, "2025-11-25")) }],
      ["/mcp", { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": "a".repeat(32), "mcp-protocol-version": "2025-11-25" } }],
      ["/mcp", { method: "DELETE", headers: { "mcp-session-id": "a".repeat(32), "mcp-protocol-version": "2025-11-25" } }],
      ["/message?sessionId=" + "a".repeat(32), { method: "POST", headers: jsonHeaders(), body: JSON.stringify(call(1, "toUpperCase", { input: "x" })) }],
      ["/", { method: "GET" }],
    ];
    for (const [path, init] of requests) {
      const response = await fetch(`${server.url}${path}`, init);
      expect(response.status, `${init.method} ${path}`).toBe(401);
      const expected = path.startsWith("/message") ? challenge().replace("resource/mcp", "resource/sse") : challenge();
      expect(response.headers.get("www-authenticate"), path).toBe(expected);
      expect(((await response.json()) as any).error.code).toBe(-32600);
    }
  });

  it("serves /health to anyone, without a token; an unknown path is 404 with or without one", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get("www-authenticate")).toBeNull();
    expect(await health.json()).toEqual({ status: "ok" });
    for (const headers of [{}, bearer(await token("alice"))]) {
      const favicon = await fetch(`${server.url}/favicon.ico`, { headers });
      expect(favicon.status).toBe(404);
      expect(favicon.headers.get("www-authenticate")).toBeNull();
      expect(((await favicon.json()) as any).error.message).toBe("No route for GET /favicon.ico");
    }
  });

  it("refuses a forged, an expired and another resource's token with 401 invalid_token", async () => {
    const tokens = {
      forged: await token("alice", { key: otherKey }),
      expired: await token("alice", { expiresIn: Math.floor(Date.now() / 1000) - 600 }),
      "another audience": await token("alice", { audience: "https://elsewhere.example/mcp" }),
      garbage: "not.a.jwt",
    };
    for (const [what, value] of Object.entries(tokens)) {
      const response = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders(bearer(value)) });
      expect(response.status, what).toBe(401);
      expect(response.headers.get("www-authenticate"), what).toContain('error="invalid_token"');
      // The token is never repeated back.
      expect(await response.text(), what).not.toContain(value);
    }
  });

  it("refuses a token in the query string with 400, and a token without the required scope with 403", async () => {
    const valid = await token("alice");
    const inUrl = await postJson(`${server.url}/mcp?access_token=${valid}`, initialize(0, "2025-11-25"), { headers: jsonHeaders(bearer(valid)) });
    expect(inUrl.status).toBe(400);
    const scopeless = await postJson(`${server.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders(bearer(await token("alice", { scope: "other" }))) });
    expect(scopeless.status).toBe(403);
    expect(scopeless.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });
});

describe("ctx.auth and scopes", () => {
  it("gives each request the principal of its own token, not the one the session started with", async () => {
    const first = await token("alice", { scope: "mcp" });
    const session = await openSession(first);
    const before = JSON.parse(await toolText(await postJson(`${server.url}/mcp`, call(1, "whoami", {}), { headers: session.headers(first) })));
    expect(before).toEqual({ issuer: ISSUER, subject: "alice", scopes: ["mcp"], session: session.sessionId });
    const upgraded = await token("alice", { scope: "mcp deploy" });
    const after = JSON.parse(await toolText(await postJson(`${server.url}/mcp`, call(2, "whoami", {}), { headers: session.headers(upgraded) })));
    expect(after.scopes).toEqual(["mcp", "deploy"]);
  });

  it("hides a scoped tool from a token without the scope, and answers its call with 403 naming it (step-up)", async () => {
    const basic = await token("bob");
    const session = await openSession(basic);
    const listed = await messagesOf(await postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { headers: session.headers(basic) }));
    const names = listed[0].result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("whoami");
    expect(names).not.toContain("deploy");
    const refused = await postJson(`${server.url}/mcp`, call(2, "deploy", {}), { headers: session.headers(basic) });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="deploy mcp", error="insufficient_scope"');
    expect(((await refused.json()) as any).id).toBe(2);
    const read = await postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "secrets://plan" } }, { headers: session.headers(basic) });
    expect(read.status).toBe(403);
    const granted = await token("bob", { scope: "mcp deploy" });
    expect(await toolText(await postJson(`${server.url}/mcp`, call(4, "deploy", {}), { headers: session.headers(granted) }))).toBe("deployed");
  });

  it("refuses the scoped tool with 403 on the legacy endpoint and on 2026-07-28 too", async () => {
    const basic = await token("carol", { audience: `${server.url}/sse` });
    const opened = await fetch(`${server.url}/sse`, { headers: { accept: "text/event-stream", ...bearer(basic) } });
    expect(opened.status).toBe(200);
    const reader = new SseReader(opened.body!);
    const endpoint = new URL((await reader.next()).data, server.url).href;
    const legacy = await postJson(endpoint, [initialize(0), call(1, "deploy", {})], { headers: jsonHeaders(bearer(basic)) });
    expect(legacy.status).toBe(403);
    await reader.cancel();
    const modern = await postJson(`${server.url}/mcp`, { ...call(1, "deploy", {}), params: { name: "deploy", arguments: {}, _meta: META } }, {
      headers: jsonHeaders({ ...bearer(await token("carol")), "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "deploy" }),
    });
    expect(modern.status).toBe(403);
  });
});

describe("a session answers only its own user", () => {
  it("is 404 to another user's token on POST, GET, resumption and DELETE, and still there for its owner", async () => {
    const alice = await token("alice");
    const mallory = await token("mallory");
    const session = await openSession(alice);
    const url = `${server.url}/mcp`;
    const posted = await postJson(url, call(1, "whoami", {}), { headers: session.headers(mallory) });
    expect(posted.status).toBe(404);
    const streamHeaders = { ...session.headers(mallory), accept: "text/event-stream" };
    expect((await fetch(url, { headers: streamHeaders })).status).toBe(404);
    expect((await fetch(url, { headers: { ...streamHeaders, "last-event-id": "x.1" } })).status).toBe(404);
    expect((await fetch(url, { method: "DELETE", headers: session.headers(mallory) })).status).toBe(404);
    // The same answer as for a session that never existed: nothing is revealed.
    const unknown = await postJson(url, call(1, "whoami", {}), { headers: { ...session.headers(mallory), "mcp-session-id": "f".repeat(32) } });
    expect(((await unknown.json()) as any).error.message).toBe(((await posted.json()) as any).error.message);
    expect(await toolText(await postJson(url, call(2, "toUpperCase", { input: "mine" }), { headers: session.headers(alice) }))).toBe("MINE");
    expect((await fetch(url, { method: "DELETE", headers: session.headers(alice) })).status).toBe(204);
  });

  it("is 404 to another user on the legacy endpoints: posting to the session, and reopening its stream", async () => {
    const audience = `${server.url}/sse`;
    const alice = await token("alice", { audience });
    const mallory = await token("mallory", { audience });
    const opened = await fetch(`${server.url}/sse`, { headers: { accept: "text/event-stream", ...bearer(alice) } });
    const reader = new SseReader(opened.body!);
    const endpoint = new URL((await reader.next()).data, server.url).href;
    expect((await postJson(endpoint, initialize(0), { headers: jsonHeaders(bearer(mallory)) })).status).toBe(404);
    const reopened = await fetch(`${server.url}/sse?sessionId=${new URL(endpoint).searchParams.get("sessionId")}`, { headers: { accept: "text/event-stream", ...bearer(mallory) } });
    expect(reopened.status).toBe(404);
    expect((await postJson(endpoint, initialize(0), { headers: jsonHeaders(bearer(alice)) })).status).toBe(202);
    expect((await reader.nextMessage()).id).toBe(0);
    await reader.cancel();
  });

  it("opens a 2026-07-28 requestState only for the user it was sealed for", async () => {
    const headers = (t: string) => jsonHeaders({ ...bearer(t), "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "confirm" });
    const ask = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "confirm", arguments: {}, _meta: META } };
    const alice = await token("alice");
    const first: any = await (await postJson(`${server.url}/mcp`, ask, { headers: headers(alice) })).json();
    expect(first.result.resultType).toBe("input_required");
    const [key] = Object.keys(first.result.inputRequests);
    const retry = { ...ask, id: 2, params: { ...ask.params, inputResponses: { [key!]: { action: "accept", content: { ok: true } } }, requestState: first.result.requestState } };
    const stolen: any = await (await postJson(`${server.url}/mcp`, retry, { headers: headers(await token("mallory")) })).json();
    expect(stolen.error?.message).toMatch(/requestState/);
    const honest: any = await (await postJson(`${server.url}/mcp`, retry, { headers: headers(alice) })).json();
    expect(honest.result.content[0].text).toBe("alice said accept");
  });
});

describe("a task answers only its own user", () => {
  /** A 2026-07-28 request with the tasks extension declared, sent with `accessToken`; `name` is its Mcp-Name. */
  function modern(accessToken: string, id: string, method: string, params: Record<string, unknown>, name?: string): Promise<Response> {
    return postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id, method, params: { ...params, _meta: TASKS_META } }, {
      headers: jsonHeaders({ ...bearer(accessToken), "mcp-protocol-version": MODERN, "mcp-method": method, ...(name === undefined ? {} : { "mcp-name": name }) }),
    });
  }

  /** `tasks/get`, `tasks/update` or `tasks/cancel` of `taskId`: the status and the JSON-RPC response. */
  async function taskMethod(accessToken: string, id: string, method: string, taskId: string, params: Record<string, unknown> = {}) {
    const response = await modern(accessToken, id, method, { taskId, ...params }, taskId);
    return { status: response.status, body: (await response.json()) as any };
  }

  /** Opens `subscriptions/listen` for `taskIds`: the task ids it acknowledged, and the reader of what follows (the caller cancels it). */
  async function listenFor(accessToken: string, id: string, taskIds: string[]) {
    const response = await modern(accessToken, id, "subscriptions/listen", { notifications: { taskIds } });
    expect(response.status).toBe(200);
    const reader = new SseReader(response.body!);
    const ack = await reader.nextMessage(EVENT_MS);
    expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { _meta: { [SUBSCRIPTION_ID]: id } } });
    return { taskIds: ack.params.notifications.taskIds as string[], reader };
  }

  it("is -32602 to another user's tasks/get, update and cancel, as an unknown task is, and left out of their listen; its owner still has it", { timeout: 60_000 }, async () => {
    const alice = await token("alice");
    const mallory = await token("mallory");
    // Long enough to be working throughout, whatever Mallory does; Alice cancels it at the end.
    const created: any = await (await modern(alice, "create", "tools/call", { name: "wait", arguments: { seconds: 120 } }, "wait")).json();
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const { taskId } = created.result as { taskId: string };

    const unknownId = "0123456789abcdef0123456789abcdef";
    for (const [method, params] of [["tasks/get", {}], ["tasks/update", { inputResponses: {} }], ["tasks/cancel", {}]] as const) {
      const refused = await taskMethod(mallory, "theirs", method, taskId, params);
      expect(refused.body.error, method).toMatchObject({ code: -32602 });
      // Nothing is revealed: the answer for a task that never existed, but for the id it names.
      const unknown = await taskMethod(mallory, "theirs", method, unknownId, params);
      expect(refused.status, method).toBe(unknown.status);
      expect(refused.body.error.message.replace(taskId, "<id>"), method).toBe(unknown.body.error.message.replace(unknownId, "<id>"));
    }

    const theirs = await listenFor(mallory, "mallory-listens", [taskId]);
    const mine = await listenFor(alice, "alice-listens", [taskId]);
    try {
      expect(theirs.taskIds).toEqual([]);
      expect(mine.taskIds).toEqual([taskId]);
      // Mallory's cancel did nothing: the task still works, for Alice.
      expect((await taskMethod(alice, "mine", "tasks/get", taskId)).body.result).toMatchObject({ resultType: "complete", taskId, status: "working" });

      // Alice's own cancel is honored, and heard on her listen only.
      expect((await taskMethod(alice, "mine", "tasks/cancel", taskId)).body.result).toMatchObject({ resultType: "complete" });
      expect(await mine.reader.nextMessage(EVENT_MS)).toMatchObject({ method: "notifications/tasks", params: { taskId, status: "cancelled", _meta: { [SUBSCRIPTION_ID]: "alice-listens" } } });
      await expect(theirs.reader.nextMessage(QUIET_MS)).rejects.toThrow(/No SSE event/);
      expect((await taskMethod(alice, "mine", "tasks/get", taskId)).body.result).toMatchObject({ taskId, status: "cancelled" });
    } finally {
      await Promise.all([theirs.reader.cancel(), mine.reader.cancel()]);
    }
  });
});

describe("rate limits", () => {
  let limited: Server;
  beforeAll(async () => {
    const RATE_LIMITS = JSON.stringify({ perAddress: { limit: 2, periodSeconds: 60 }, perPrincipal: { limit: 3, periodSeconds: 2 } });
    // Behind a reverse proxy that appends the client's address to X-Forwarded-For (as nginx does);
    // a request without the header is counted by the runtime's own address.
    limited = await startServer({ entry: ENTRY, vars: { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: issuer.jwks, RATE_LIMITS, TRUST_PROXY: "x-forwarded-for" } });
  });
  afterAll(() => limited?.dispose());

  it("answers 429 past a user's limit, with the limit, the window and Retry-After, and lets the user in after the window", async () => {
    const value = await issuer.sign({ sub: "dave", aud: `${limited.url}/mcp` });
    const ping = () => postJson(`${limited.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders(bearer(value)) });
    const { statuses, refused } = await sendUntilRefused(ping, 20);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(refused?.status).toBe(429);
    const retryAfter = Number(refused!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    const body: any = await refused!.json();
    expect(body.error.data).toMatchObject({ limit: 3, periodSeconds: 2 });
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 200));
    expect((await ping()).status).toBe(200);
  });

  it("answers 429 to an address past its unauthenticated requests, still lets a token it verified before through, and keeps /health up", async () => {
    // The address: the socket's peer on Deno; on Workers the edge's CF-Connecting-IP, which this
    // request sets as Cloudflare's edge would (no edge in front of a local runtime).
    const from = { "cf-connecting-ip": "203.0.113.9" };
    const anonymous = () => postJson(`${limited.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders(from) });
    const value = await issuer.sign({ sub: "erin", aud: `${limited.url}/mcp` });
    const signIn = (accessToken: string) => postJson(`${limited.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders({ ...from, ...bearer(accessToken) }) });
    const first = await signIn(value);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect((await anonymous()).status).toBe(401);
    expect((await anonymous()).status).toBe(401);
    const refused = await anonymous();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json() as any).error.message).toMatch(/^Too many requests from this address: the limit is 2 per 60 s/);
    const admitted = await signIn(value);
    expect(admitted.status).toBe(200);
    await admitted.arrayBuffer();
    // A token never seen is not even verified from a limited address: it waits out the window.
    const stranger = await signIn(await issuer.sign({ sub: "frank", aud: `${limited.url}/mcp` }));
    expect(stranger.status).toBe(429);
    await stranger.arrayBuffer();
    // Liveness is no request to limit.
    for (let i = 0; i < 5; i++) expect((await fetch(`${limited.url}/health`, { headers: from })).status).toBe(200);
  });

  it("with TRUST_PROXY=x-forwarded-for, counts each client behind the proxy apart, by the right-most X-Forwarded-For address", async () => {
    const via = (client: string) => () => postJson(`${limited.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders({ "x-forwarded-for": `198.51.100.66, ${client}` }) });
    const first = via("192.0.2.1");
    expect((await first()).status).toBe(401);
    expect((await first()).status).toBe(401);
    expect((await first()).status).toBe(429);
    // Another client through the same proxy (the same socket address) still starts its sign-in with a 401.
    for (const client of ["192.0.2.2", "2001:db8:42::1"]) expect((await via(client)()).status, client).toBe(401);
    // The left-most entries are the client's own to write: they change nothing.
    const spoofed = () => postJson(`${limited.url}/mcp`, initialize(0, "2025-11-25"), { headers: jsonHeaders({ "x-forwarded-for": `192.0.2.${Math.floor(Math.random() * 200)}, 192.0.2.1` }) });
    expect((await spoofed()).status).toBe(429);
  });
});
