import { describe, expect, it } from "vitest";
import { enterpriseAuthorization, enterpriseIdps } from "./enterprise.ts";

const IDP = { issuer: "https://idp.example", jwks_uri: "https://idp.example/keys", clients: ["client-1"] };
const client = (clientId: string) => ({ clientId }) as never;
const input = (iss: string, clientId: string) => ({ iss, clientInfo: client(clientId), env: {} as never, request: new Request("https://as.example/token") });

describe("ENTERPRISE_IDP", () => {
  it("is off when unset or empty", () => {
    expect(enterpriseAuthorization({})).toBeUndefined();
    expect(enterpriseAuthorization({ ENTERPRISE_IDP: "" })).toBeUndefined();
  });

  it("reads one identity provider or a list, as JSON text or an object", () => {
    expect(enterpriseIdps(JSON.stringify(IDP))).toEqual([IDP]);
    expect(enterpriseIdps([IDP, { ...IDP, issuer: "https://other.example" }])).toHaveLength(2);
  });

  it("says what is wrong with a bad configuration", () => {
    expect(() => enterpriseIdps("{")).toThrow(/ENTERPRISE_IDP is not JSON/);
    expect(() => enterpriseIdps({ ...IDP, issuer: "http://idp.example" })).toThrow('ENTERPRISE_IDP.issuer must be an https URL (got "http://idp.example")');
    expect(() => enterpriseIdps([IDP, { ...IDP, jwks_uri: undefined }])).toThrow(/ENTERPRISE_IDP\[1\]\.jwks_uri must be an https URL/);
    expect(() => enterpriseIdps({ ...IDP, clients: [] })).toThrow(/clients must list the client ids/);
    expect(() => enterpriseIdps({ ...IDP, algorithms: ["HS256"] })).toThrow(/algorithms must list RS256 and\/or ES256/);
  });

  it("trusts an issuer only for the clients listed for it", async () => {
    const ema = enterpriseAuthorization({ ENTERPRISE_IDP: { ...IDP, algorithms: ["ES256"] } })!;
    expect(await ema.trustedIssuers(input(IDP.issuer, "client-1"))).toEqual({ issuer: IDP.issuer, jwksUri: IDP.jwks_uri, algorithms: ["ES256"] });
    expect(await ema.trustedIssuers(input(IDP.issuer, "client-2"))).toBeNull();
    expect(await ema.trustedIssuers(input("https://unknown.example", "client-1"))).toBeNull();
  });

  it("grants the requested scopes this server has, and nothing without mcp", async () => {
    const ema = enterpriseAuthorization({ ENTERPRISE_IDP: IDP })!;
    const claims = { iss: IDP.issuer, sub: "alice", email: "alice@example.com" } as never;
    const map = (requestedScope: string[]) => ema.mapClaims({ claims, requestedScope, clientInfo: client("client-1"), resource: "https://as.example/mcp", request: new Request("https://as.example/token"), env: {} as never });
    expect(await map(["mcp", "scores:admin", "unknown"])).toMatchObject({ scope: ["mcp", "scores:admin"], props: { enterprise: { issuer: IDP.issuer, subject: "alice", email: "alice@example.com" } } });
    expect(await map(["scores:admin"])).toBeNull();
    expect(await map([])).toBeNull();
  });
});
