import { describe, expect, it } from "vitest";
import { callerOf } from "../auth/Caller.ts";
import { ANONYMOUS, clientKey, isPrincipalKey } from "./clientKey.ts";

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
