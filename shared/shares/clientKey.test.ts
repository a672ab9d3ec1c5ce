import { describe, expect, it } from "vitest";
import { callerOf } from "../auth/Caller.ts";
import { ANONYMOUS, clientKey, isPrincipalKey, networkOf } from "./clientKey.ts";

describe("clientKey", () => {
  it("is the principal's digest when signed in, and tells it apart from an address's and the anonymous client", async () => {
    const caller = await callerOf({ issuer: "https://issuer.example", subject: "alice", scopes: [], claims: {} });
    const signedIn = await clientKey(caller, "192.0.2.1");
    expect(signedIn).toBe(caller.owner);
    expect(isPrincipalKey(signedIn)).toBe(true);
    const byAddress = await clientKey(undefined, "192.0.2.1");
    expect(byAddress).toMatch(/^address:/);
    expect(byAddress).not.toContain("192.0.2.1");
    expect(isPrincipalKey(byAddress)).toBe(false);
    expect(await clientKey(undefined, undefined)).toBe(ANONYMOUS);
    expect(isPrincipalKey(ANONYMOUS)).toBe(false);
  });

  it("counts an IPv6 client by its /64", async () => {
    expect(await clientKey(undefined, "2001:db8:1:2::1")).toBe(await clientKey(undefined, "2001:db8:1:2:ffff::9"));
    expect(await clientKey(undefined, "2001:db8:1:2::1")).not.toBe(await clientKey(undefined, "2001:db8:1:3::1"));
  });
});

describe("networkOf", () => {
  it("groups an address's key with its network's (IPv4 /24, IPv6 /48), and leaves a principal and the anonymous client alone", async () => {
    const network = async (address: string) => networkOf(await clientKey(undefined, address));
    expect(await network("203.0.113.7")).toBe(await network("203.0.113.200"));
    expect(await network("203.0.113.7")).not.toBe(await network("203.0.114.7"));
    expect(await network("2001:db8:1:2::1")).toBe(await network("2001:db8:1:ffff::1"));
    expect(await network("2001:db8:1:2::1")).not.toBe(await network("2001:db8:2:2::1"));
    expect(await network("203.0.113.7")).not.toBe(await clientKey(undefined, "203.0.113.7"));
    const caller = await callerOf({ issuer: "https://issuer.example", subject: "alice", scopes: [], claims: {} });
    expect(networkOf(caller.owner)).toBe(caller.owner);
    expect(networkOf(ANONYMOUS)).toBe(ANONYMOUS);
  });
});
