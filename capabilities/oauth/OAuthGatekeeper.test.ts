import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { notification, request as rpcRequest, resultReply } from "../../shared/jsonrpc/messages.ts";
import { tool } from "../../shared/server/defineServer.ts";
import { accepted, refusal } from "../../shared/testing/testKit.ts";
import type { Caller } from "../../shared/auth/Caller.ts";
import { OAuthGatekeeper } from "./OAuthGatekeeper.ts";
import { jwtVerifier } from "./jwtVerifier.ts";
import type { TokenVerifier } from "./TokenVerifier.ts";
import { MAX_TRACKED_KEYS, type RateLimit, WindowLimiter } from "./RateLimiter.ts";
import { OAuthResourceServer } from "./OAuthResourceServer.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const ISSUER = "https://auth.example.com";
const ORIGIN = "https://mcp.example.com";
const METADATA = `${ORIGIN}/.well-known/oauth-protected-resource/mcp`;
const ADDRESS = "203.0.113.7";

let privateKey: CryptoKey;
let otherKey: CryptoKey;
let verify: TokenVerifier;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  privateKey = pair.privateKey;
  otherKey = (await generateKeyPair("ES256")).privateKey;
  verify = jwtVerifier({ issuer: ISSUER, keys: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] } });
});

/** An access token for this resource, by this issuer, unless told otherwise. */
function token(subject: string, scope = "tools", options: { key?: CryptoKey; jti?: string } = {}): Promise<string> {
  return new SignJWT({ scope, jti: options.jti ?? crypto.randomUUID() })
    .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
    .setSubject(subject)
    .setIssuer(ISSUER)
    .setAudience(`${ORIGIN}/mcp`)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(options.key ?? privateKey);
}

function post(bearer?: string): Request {
  return new Request(`${ORIGIN}/mcp`, { method: "POST", headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } });
}

/**
 * A gatekeeper with a real resource server (its verifier counted), and real limiters on one
 * manual clock. `false` leaves a part out.
 */
function gate(options: { authorization?: boolean; perAddress?: RateLimit | false; perPrincipal?: RateLimit | false } = {}) {
  const clock = { now: 1_000_000 };
  const verifications = { count: 0 };
  const counted: TokenVerifier = (...args) => (verifications.count++, verify(...args));
  const server = options.authorization === false ? undefined : new OAuthResourceServer({ authorizationServers: [ISSUER], scopesSupported: ["tools", "deploy"], verify: counted, resource: `${ORIGIN}/mcp` });
  const limiter = (rate: RateLimit | false | undefined, fallback: RateLimit) => (rate === false ? undefined : new WindowLimiter(rate ?? fallback, { now: () => clock.now }));
  const perAddress = limiter(options.perAddress, { limit: 3, periodSeconds: 60 });
  const perPrincipal = limiter(options.perPrincipal, { limit: 5, periodSeconds: 60 });
  return { gatekeeper: new OAuthGatekeeper(server, { perAddress, perPrincipal }), clock, verifications, perAddress, perPrincipal };
}

describe("OAuthGatekeeper: authentication", () => {
  it("refuses a request without a token with 401 and the challenge, and counts it against the address", async () => {
    const { gatekeeper, perAddress } = gate();
    const error = refusal(await gatekeeper.admit(post(), {}, ADDRESS));
    expect(error).toBeInstanceOf(McpError);
    expect(error.status).toBe(401);
    expect(error.headers?.["www-authenticate"]).toBe(`Bearer resource_metadata="${METADATA}", DPoP algs="ES256 ES384 EdDSA PS256 RS256"`);
    expect(perAddress!.size).toBe(1);
  });

  it("refuses a forged token with 401 invalid_token, also counted", async () => {
    const { gatekeeper, perAddress } = gate();
    const error = refusal(await gatekeeper.admit(post(await token("alice", "tools", { key: otherKey })), {}, ADDRESS));
    expect(error.status).toBe(401);
    expect(error.headers?.["www-authenticate"]).toContain('error="invalid_token"');
    expect(perAddress!.size).toBe(1);
  });

  it("admits a valid token with its caller: the owner is the same for every token of one user, and differs between users", async () => {
    const { gatekeeper } = gate();
    const first = accepted(await gatekeeper.admit(post(await token("alice", "tools")), {}, ADDRESS)) as Caller;
    const second = accepted(await gatekeeper.admit(post(await token("alice", "tools deploy")), {}, "198.51.100.2")) as Caller;
    const bob = accepted(await gatekeeper.admit(post(await token("bob", "tools")), {}, ADDRESS)) as Caller;
    expect(first.auth).toMatchObject({ issuer: ISSUER, subject: "alice", scopes: ["tools"] });
    expect(second.auth.scopes).toEqual(["tools", "deploy"]);
    expect(first.owner).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.owner).toBe(first.owner);
    expect(bob.owner).not.toBe(first.owner);
    // The owner is a digest: it does not spell out who the user is.
    expect(first.owner).not.toContain("alice");
  });

  it("does not count authenticated requests against the address (hosted clients share a few egress addresses)", async () => {
    const { gatekeeper, perAddress } = gate({ perAddress: { limit: 3, periodSeconds: 60 }, perPrincipal: false });
    for (let i = 0; i < 10; i++) accepted(await gatekeeper.admit(post(await token(`user-${i}`)), {}, ADDRESS));
    expect(perAddress!.size).toBe(0);
    expect(refusal(await gatekeeper.admit(post(), {}, ADDRESS)).status).toBe(401);
  });
});

describe("OAuthGatekeeper: the per-address limit", () => {
  it("answers 429 once an address has failed `limit` times: at once without a token, after the check for a bad one", async () => {
    const { gatekeeper, clock, verifications } = gate({ perAddress: { limit: 3, periodSeconds: 60 } });
    for (let i = 0; i < 3; i++) expect(refusal(await gatekeeper.admit(post("garbage"), {}, ADDRESS)).status).toBe(401);
    expect(verifications.count).toBe(3);
    clock.now += 15_000;
    const error = refusal(await gatekeeper.admit(post(), {}, ADDRESS));
    expect(verifications.count).toBe(3);
    // A token this server has not verified before is not checked at all: 429, no CPU spent on it.
    expect(refusal(await gatekeeper.admit(post("garbage"), {}, ADDRESS)).status).toBe(429);
    expect(verifications.count).toBe(3);
    expect(error.status).toBe(429);
    expect(error.code).toBe(ErrorCode.ServerBusy);
    expect(error.message).toBe("Too many requests from this address: the limit is 3 per 60 s; retry after 45 s");
    expect(error.data).toEqual({ limit: 3, periodSeconds: 60, retryAfterSeconds: 45 });
    expect(error.headers).toEqual({ "retry-after": "45", "ratelimit-policy": "3;w=60" });
    expect(error.toJsonRpc()).toEqual({ code: ErrorCode.ServerBusy, message: error.message, data: { limit: 3, periodSeconds: 60, retryAfterSeconds: 45 } });
  });

  it("lets a token it verified before through an address over its limit (hosted clients share egress addresses)", async () => {
    const { gatekeeper, verifications } = gate({ perAddress: { limit: 1, periodSeconds: 10 } });
    const alice = await token("alice");
    expect(accepted(await gatekeeper.admit(post(alice), {}, ADDRESS))?.auth.subject).toBe("alice");
    refusal(await gatekeeper.admit(post(), {}, ADDRESS));
    expect(refusal(await gatekeeper.admit(post(), {}, ADDRESS)).status).toBe(429);
    expect(accepted(await gatekeeper.admit(post(alice), {}, ADDRESS))?.auth.subject).toBe("alice");
    // Checked again all the same (expiry, revocation): knowing it only lets it be checked.
    expect(verifications.count).toBe(2);
  });

  it("refuses a limited address before verifying a token it has not seen: forged, or valid but new (429, no verification)", async () => {
    const { gatekeeper, verifications } = gate({ perAddress: { limit: 2, periodSeconds: 60 } });
    for (let i = 0; i < 2; i++) refusal(await gatekeeper.admit(post(await token("mallory", "tools", { key: otherKey })), {}, ADDRESS));
    expect(verifications.count).toBe(2);
    for (let i = 0; i < 50; i++) expect(refusal(await gatekeeper.admit(post(await token("mallory", "tools", { key: otherKey })), {}, ADDRESS)).status).toBe(429);
    const fresh = refusal(await gatekeeper.admit(post(await token("bob")), {}, ADDRESS));
    expect([fresh.status, fresh.headers?.["retry-after"]]).toEqual([429, "60"]);
    expect(verifications.count).toBe(2);
    // Another address verifies as ever.
    expect(accepted(await gatekeeper.admit(post(await token("bob")), {}, "198.51.100.2"))?.auth.subject).toBe("bob");
  });

  it("refuses a whole IPv6 /48 before verification once a flood of its /64s crowds the table", { timeout: 60_000 }, async () => {
    const { gatekeeper, verifications, perAddress } = gate({ perAddress: { limit: 3, periodSeconds: 60 } });
    const flood = Array.from({ length: 20_500 }, (_, i) => `2001:db8:7:${i.toString(16)}::1`);
    for (const address of flood) await gatekeeper.admit(post("garbage"), {}, address);
    expect((perAddress as WindowLimiter).size).toBeLessThanOrEqual(MAX_TRACKED_KEYS);
    const before = verifications.count;
    expect(refusal(await gatekeeper.admit(post(await token("eve", "tools", { key: otherKey })), {}, "2001:db8:7:ffff::9")).status).toBe(429);
    expect(verifications.count).toBe(before);
    expect(refusal(await gatekeeper.admit(post(), {}, ADDRESS)).status).toBe(401);
  });

  it("lets the address in again once its window has passed", async () => {
    const { gatekeeper, clock } = gate({ perAddress: { limit: 1, periodSeconds: 10 } });
    refusal(await gatekeeper.admit(post(), {}, ADDRESS));
    expect(refusal(await gatekeeper.admit(post(), {}, ADDRESS)).headers?.["retry-after"]).toBe("10");
    clock.now += 10_000;
    expect(refusal(await gatekeeper.admit(post(), {}, ADDRESS)).status).toBe(401);
  });

  it("limits each address apart, an IPv6 client by its /64", async () => {
    const { gatekeeper } = gate({ perAddress: { limit: 2, periodSeconds: 60 } });
    refusal(await gatekeeper.admit(post(), {}, "2001:db8:1:2::1"));
    refusal(await gatekeeper.admit(post(), {}, "2001:db8:1:2:aaaa::2"));
    expect(refusal(await gatekeeper.admit(post(), {}, "[2001:db8:1:2::3]")).status).toBe(429);
    expect(refusal(await gatekeeper.admit(post(), {}, "2001:db8:1:3::1")).status).toBe(401);
    expect(refusal(await gatekeeper.admit(post(), {}, ADDRESS)).status).toBe(401);
  });

  it("limits nothing by address when the runtime does not know the address", async () => {
    const { gatekeeper, perAddress } = gate({ perAddress: { limit: 1, periodSeconds: 60 } });
    for (let i = 0; i < 5; i++) expect(refusal(await gatekeeper.admit(post(), {}, undefined)).status).toBe(401);
    expect(perAddress!.size).toBe(0);
  });
});

describe("OAuthGatekeeper: the per-principal limit", () => {
  it("answers 429 for this user past its limit, wherever the user calls from, and not for another user", async () => {
    const { gatekeeper, clock } = gate({ perPrincipal: { limit: 2, periodSeconds: 60 } });
    accepted(await gatekeeper.admit(post(await token("alice")), {}, "198.51.100.1"));
    accepted(await gatekeeper.admit(post(await token("alice")), {}, "198.51.100.2"));
    clock.now += 30_000;
    const error = refusal(await gatekeeper.admit(post(await token("alice")), {}, "198.51.100.3"));
    expect(error.status).toBe(429);
    expect(error.message).toBe("Too many requests from this user: the limit is 2 per 60 s; retry after 30 s");
    expect(error.data).toEqual({ limit: 2, periodSeconds: 60, retryAfterSeconds: 30 });
    expect(error.headers).toEqual({ "retry-after": "30", "ratelimit-policy": "2;w=60" });
    expect(accepted(await gatekeeper.admit(post(await token("bob")), {}, "198.51.100.3"))?.auth.subject).toBe("bob");
  });

  it("does not count refused tokens against the user they name", async () => {
    const { gatekeeper } = gate({ perAddress: false, perPrincipal: { limit: 1, periodSeconds: 60 } });
    for (let i = 0; i < 3; i++) refusal(await gatekeeper.admit(post(await token("alice", "tools", { key: otherKey })), {}, ADDRESS));
    accepted(await gatekeeper.admit(post(await token("alice")), {}, ADDRESS));
  });
});

describe("OAuthGatekeeper: configurations", () => {
  it("without authorization and with a per-address limit, counts every request and has no caller", async () => {
    const { gatekeeper } = gate({ authorization: false, perAddress: { limit: 2, periodSeconds: 60 } });
    expect(await gatekeeper.admit(post(), {}, ADDRESS)).toEqual({ ok: true, value: undefined });
    expect(await gatekeeper.admit(post("anything"), {}, ADDRESS)).toEqual({ ok: true, value: undefined });
    const error = refusal(await gatekeeper.admit(post(), {}, ADDRESS));
    expect([error.status, error.headers?.["retry-after"]]).toEqual([429, "60"]);
    expect(await gatekeeper.admit(post(), {}, "198.51.100.9")).toEqual({ ok: true, value: undefined });
  });

  it("with neither limiter, limits nothing", async () => {
    const open = gate({ authorization: false, perAddress: false, perPrincipal: false }).gatekeeper;
    for (let i = 0; i < 50; i++) expect(await open.admit(post(), {}, ADDRESS)).toEqual({ ok: true, value: undefined });
    const checked = gate({ perAddress: false, perPrincipal: false }).gatekeeper;
    for (let i = 0; i < 20; i++) expect(refusal(await checked.admit(post(), {}, ADDRESS)).status).toBe(401);
    for (let i = 0; i < 20; i++) accepted(await checked.admit(post(await token("alice")), {}, ADDRESS));
  });
});

describe("OAuthGatekeeper: scopes", () => {
  const definition = new CompiledServer({
    name: "s",
    version: "1",
    tools: [
      tool({ name: "open", description: "", input: z.object({}), handler: async () => "" }),
      tool({ name: "deploy", description: "", input: z.object({}), scopes: ["deploy"], handler: async () => "" }),
      tool({ name: "admin", description: "", input: z.object({}), scopes: ["admin"], handler: async () => "" }),
    ],
  });
  const callTool = (id: number, name: string) => rpcRequest(id, "tools/call", { name, arguments: {} });

  async function callerWith(scope: string): Promise<{ gatekeeper: OAuthGatekeeper; caller: Caller }> {
    const { gatekeeper } = gate();
    return { gatekeeper, caller: accepted(await gatekeeper.admit(post(await token("alice", scope)), {}, ADDRESS))! };
  }

  it("refuses with 403 insufficient_scope naming the scopes needed and those already granted (step-up)", async () => {
    const { gatekeeper, caller } = await callerWith("tools profile");
    const error = gatekeeper.refuseScopes(post(), definition.scopesNeeded([callTool(1, "deploy")]), caller);
    expect(error).toBeInstanceOf(McpError);
    expect(error?.status).toBe(403);
    expect(error?.message).toBe("The access token lacks the scope deploy this request needs");
    expect(error?.headers?.["www-authenticate"]).toBe(
      `Bearer resource_metadata="${METADATA}", scope="deploy tools profile", error="insufficient_scope", error_description="The access token lacks the scope deploy this request needs", DPoP algs="ES256 ES384 EdDSA PS256 RS256"`,
    );
  });

  it("names every scope a batch needs, once", async () => {
    const { gatekeeper, caller } = await callerWith("tools");
    const batch = [callTool(1, "deploy"), callTool(2, "open"), notification("notifications/initialized"), callTool(3, "admin"), callTool(4, "deploy")];
    const error = gatekeeper.refuseScopes(post(), definition.scopesNeeded(batch), caller);
    expect(error?.message).toBe("The access token lacks the scopes deploy admin this request needs");
    expect(error?.headers?.["www-authenticate"]).toContain('scope="deploy admin tools"');
  });

  it("lets a batch go on when the token grants what it needs, or it needs nothing", async () => {
    const { gatekeeper, caller } = await callerWith("deploy tools");
    expect(gatekeeper.refuseScopes(post(), definition.scopesNeeded([callTool(1, "deploy"), callTool(2, "open")]), caller)).toBeUndefined();
    const plain = await callerWith("tools");
    expect(plain.gatekeeper.refuseScopes(post(), definition.scopesNeeded([callTool(1, "open"), callTool(2, "missing")]), plain.caller)).toBeUndefined();
  });

  it("reads only requests and notifications: a response naming a method-like result needs nothing", async () => {
    const { gatekeeper, caller } = await callerWith("tools");
    expect(gatekeeper.refuseScopes(post(), definition.scopesNeeded([resultReply(1, { name: "deploy" })]), caller)).toBeUndefined();
  });

  it("answers undefined without a caller, and where tokens are not checked", async () => {
    const { gatekeeper } = gate();
    expect(gatekeeper.refuseScopes(post(), definition.scopesNeeded([callTool(1, "deploy")]), undefined)).toBeUndefined();
    const { caller } = await callerWith("tools");
    const unchecked = gate({ authorization: false }).gatekeeper;
    expect(unchecked.refuseScopes(post(), definition.scopesNeeded([callTool(1, "deploy")]), caller)).toBeUndefined();
  });
});

describe("OAuthGatekeeper: metadata", () => {
  it("serves the resource server's protected-resource metadata, and nothing else", async () => {
    const { gatekeeper } = gate();
    const response = gatekeeper.metadata(new Request(METADATA));
    expect(response?.status).toBe(200);
    expect(await response?.json()).toEqual({
      resource: `${ORIGIN}/mcp`,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
      scopes_supported: ["tools", "deploy"],
      dpop_signing_alg_values_supported: ["ES256", "ES384", "EdDSA", "PS256", "RS256"],
    });
    expect(gatekeeper.metadata(new Request(`${ORIGIN}/mcp`))).toBeUndefined();
    expect(gatekeeper.metadata(post())).toBeUndefined();
  });

  it("has none where tokens are not checked", () => {
    expect(gate({ authorization: false }).gatekeeper.metadata(new Request(METADATA))).toBeUndefined();
  });
});
