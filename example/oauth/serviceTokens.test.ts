import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ACCESS_TOKEN_TTL_S, issueServiceToken, withServiceTokens } from "./serviceTokens.ts";

const ISSUER = "https://mcp.example.com";
const MCP = `${ISSUER}/mcp`;
const SECRET = "a test secret of at least thirty-two characters";
const clients = (scopes: string[]) => JSON.stringify([{ client_id: "reporter", scopes, secret_sha256: "a".repeat(64) }]);
const ENV = { SERVICE_CLIENTS: clients(["mcp", "scores:admin"]), REQUEST_STATE_SECRET: SECRET };
const opaque = vi.fn(async () => ({ ok: false as const, reason: "the provider's answer" }));
const verify = withServiceTokens(opaque);
const issue = (scopes = ["mcp", "scores:admin"], audience = MCP) => issueServiceToken(ENV, { issuer: ISSUER, clientId: "reporter", audience, scopes });

afterEach(() => {
  vi.useRealTimers();
  opaque.mockClear();
});

describe("service tokens", () => {
  it("verify as the service principal, for the audience they were issued for", async () => {
    expect(await verify(await issue(), MCP, ENV)).toMatchObject({
      ok: true,
      principal: { issuer: ISSUER, subject: "service:reporter", scopes: ["mcp", "scores:admin"], claims: { client_id: "reporter", aud: MCP } },
    });
    expect(await verify(await issue(["mcp"], `${ISSUER}/sse`), MCP, ENV)).toEqual({ ok: false, reason: "The access token was not issued for this resource" });
    expect(await verify(await issue(), "https://elsewhere.example/mcp", ENV)).toMatchObject({ ok: false });
    expect(opaque).not.toHaveBeenCalled();
  });

  it("leave tokens that are not JWTs (the provider's user:grant:secret) to the other verifier", async () => {
    expect(await verify("alice:0123456789abcdef:secret", MCP, ENV)).toEqual({ ok: false, reason: "the provider's answer" });
    expect(opaque).toHaveBeenCalledOnce();
  });

  it("are refused once the client is gone from SERVICE_CLIENTS, and narrowed with its scopes", async () => {
    const token = await issue();
    expect(await verify(token, MCP, { ...ENV, SERVICE_CLIENTS: "[]" })).toEqual({ ok: false, reason: "The access token's client is no longer a service client here" });
    expect(await verify(token, MCP, { ...ENV, SERVICE_CLIENTS: undefined })).toMatchObject({ ok: false });
    expect(await verify(token, MCP, { ...ENV, SERVICE_CLIENTS: clients(["mcp"]) })).toMatchObject({ ok: true, principal: { scopes: ["mcp"] } });
  });

  it(`expire after ${ACCESS_TOKEN_TTL_S} s and a minute of skew`, async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const token = await issue();
    vi.setSystemTime(Date.now() + (ACCESS_TOKEN_TTL_S + 50) * 1000);
    expect(await verify(token, MCP, ENV)).toMatchObject({ ok: true });
    vi.setSystemTime(Date.now() + 20 * 1000);
    expect(await verify(token, MCP, ENV)).toEqual({ ok: false, reason: "The access token has expired" });
  });

  it("are refused when signed with another key: another secret's, or the secret itself rather than the key derived from it", async () => {
    const other = await issueServiceToken({ ...ENV, REQUEST_STATE_SECRET: `${SECRET}, another` }, { issuer: ISSUER, clientId: "reporter", audience: MCP, scopes: ["mcp"] });
    expect(await verify(other, MCP, ENV)).toEqual({ ok: false, reason: "The access token is not one this server issued" });
    const plain = await new SignJWT({ client_id: "reporter", scope: "mcp" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuer(ISSUER).setSubject("service:reporter").setAudience(MCP).setExpirationTime("1m").sign(new TextEncoder().encode(SECRET));
    expect(await verify(plain, MCP, ENV)).toMatchObject({ ok: false });
  });
});
