import { describe, expect, it } from "vitest";
import { serviceClients } from "./serviceClients.ts";

const DIGEST = "a".repeat(64);
const EC_KEY = { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" };
const parse = (clients: unknown) => serviceClients({ SERVICE_CLIENTS: JSON.stringify(clients) });

describe("serviceClients", () => {
  it("is undefined when SERVICE_CLIENTS is unset or empty: no service clients", () => {
    expect(serviceClients({})).toBeUndefined();
    expect(serviceClients({ SERVICE_CLIENTS: " " })).toBeUndefined();
  });

  it("reads a secret's digest as its 32 bytes, and a key set as given", () => {
    const parsed = parse([
      { client_id: "reporter", scopes: ["mcp"], secret_sha256: "00ff".repeat(16) },
      { client_id: "ci.agent_2~x-y", scopes: ["mcp", "scores:admin"], jwks: { keys: [EC_KEY] } },
    ]);
    expect(parsed?.ok).toBe(true);
    if (!parsed?.ok) return;
    expect([...parsed.clients.get("reporter")!.secretDigest!.slice(0, 2)]).toEqual([0, 255]);
    expect(parsed.clients.get("ci.agent_2~x-y")).toMatchObject({ scopes: ["mcp", "scores:admin"], keys: { keys: [EC_KEY] } });
  });

  it.each([
    ["not JSON", "{", /is not JSON/],
    ["not an array", JSON.stringify({ client_id: "a" }), /must be a JSON array/],
    ["a client id with a colon", JSON.stringify([{ client_id: "a:b", scopes: ["mcp"], secret_sha256: DIGEST }]), /SERVICE_CLIENTS\[0\]: client_id must be/],
    ["a client id of 65 characters", JSON.stringify([{ client_id: "a".repeat(65), scopes: ["mcp"], secret_sha256: DIGEST }]), /client_id must be 1 to 64/],
    ["a scope the server does not have", JSON.stringify([{ client_id: "a", scopes: ["admin"], secret_sha256: DIGEST }]), /"a": scopes must be .* \(mcp, scores:admin\)/],
    ["no scopes", JSON.stringify([{ client_id: "a", scopes: [], secret_sha256: DIGEST }]), /scopes must be a non-empty list/],
    ["both ways to authenticate", JSON.stringify([{ client_id: "a", scopes: ["mcp"], secret_sha256: DIGEST, jwks: { keys: [EC_KEY] } }]), /exactly one of secret_sha256 and jwks/],
    ["neither", JSON.stringify([{ client_id: "a", scopes: ["mcp"] }]), /exactly one of secret_sha256 and jwks/],
    ["the secret itself", JSON.stringify([{ client_id: "a", scopes: ["mcp"], secret_sha256: "hunter2" }]), /secret_sha256 must be 64 hex digits/],
    ["a private key", JSON.stringify([{ client_id: "a", scopes: ["mcp"], jwks: { keys: [{ ...EC_KEY, d: "secret" }] } }]), /holds a private key/],
    ["a key of another type", JSON.stringify([{ client_id: "a", scopes: ["mcp"], jwks: { keys: [{ kty: "OKP", crv: "Ed25519", x: "x" }] } }]), /must be RSA, or EC on P-256/],
    ["an empty key set", JSON.stringify([{ client_id: "a", scopes: ["mcp"], jwks: { keys: [] } }]), /at least one key/],
    ["a client twice", JSON.stringify([1, 2].map(() => ({ client_id: "a", scopes: ["mcp"], secret_sha256: DIGEST }))), /SERVICE_CLIENTS\[1\]: client_id "a" is listed twice/],
  ])("refuses %s with a sentence naming it, never the secret", (_name, text, sentence) => {
    const parsed = serviceClients({ SERVICE_CLIENTS: text });
    expect(parsed).toMatchObject({ ok: false, problem: expect.stringMatching(sentence) });
    expect(JSON.stringify(parsed)).not.toContain("hunter2");
    expect(JSON.stringify(parsed)).not.toContain('"secret"');
  });
});
