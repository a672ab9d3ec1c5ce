import { describe, expect, it } from "vitest";
import { boundThumbprint, providerVerifier, type ValidatedToken } from "./providerVerifier.ts";

const RESOURCE = "https://mcp.example.com/mcp";
const validated = (props: unknown): ValidatedToken => ({ userId: "alice", clientId: "c1", scope: ["mcp"], audience: RESOURCE, expiresAt: 2_000_000_000, props });
/** A provider that knows one token, with `props`. */
const verifierWith = (props: unknown) => providerVerifier(() => ({ validateToken: async (_resource, token) => (token === "t" ? validated(props) : null) }));

describe("providerVerifier", () => {
  it("hands on the key a DPoP-bound token's props name (cnf.jkt), and none for a bearer token", async () => {
    const bound = await verifierWith({ user: "alice", cnf: { jkt: "thumb" } })("t", RESOURCE, {});
    expect(bound.ok && bound.principal.keyThumbprint).toBe("thumb");
    const plain = await verifierWith({ user: "alice" })("t", RESOURCE, {});
    expect(plain.ok && "keyThumbprint" in plain.principal).toBe(false);
  });

  it("reads only a non-empty string under props.cnf.jkt", () => {
    for (const props of [undefined, null, "cnf", { cnf: "jkt" }, { cnf: { jkt: 1 } }, { cnf: { jkt: "" } }]) expect(boundThumbprint(props), JSON.stringify(props)).toBeUndefined();
    expect(boundThumbprint({ cnf: { jkt: "x" } })).toBe("x");
  });
});
