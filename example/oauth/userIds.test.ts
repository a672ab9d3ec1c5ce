import { describe, expect, it } from "vitest";
import { consentUserId, enterpriseUserId } from "./userIds.ts";

const BEARER_CHARS = /^[A-Za-z0-9\-._~+/]+$/;

describe("user ids at the OAuth example's authorization server", () => {
  it("keeps a plain typed name as it is, and encodes any other behind `~`", () => {
    expect(consentUserId("alice")).toBe("alice");
    expect(consentUserId("Anne-Marie_2.0")).toBe("Anne-Marie_2.0");
    expect(consentUserId("Anne Marie")).toBe("~QW5uZSBNYXJpZQ");
    expect(consentUserId("José")).toBe("~Sm9zw6k");
  });

  it("gives ids that are bearer-token characters without `:`, for every way in", () => {
    for (const id of [consentUserId("o'brien: ops"), consentUserId("~x/y%z"), enterpriseUserId("https://login.example/tenant/v2.0", "user:42@example.com")]) {
      expect(id).toMatch(BEARER_CHARS);
      expect(id).not.toContain(":");
    }
  });

  it("never gives two people one id: typed names, encoded names and enterprise users stay apart", () => {
    const alice = enterpriseUserId("https://idp.example", "alice");
    const ids = [
      alice,
      enterpriseUserId("https://other-idp.example", "alice"),
      enterpriseUserId("https://idp.example", "bob"),
      // the subject and issuer boundary cannot be shifted
      enterpriseUserId("https://idp.example/a", "b"),
      enterpriseUserId("https://idp.example", "a/b"),
      // a person typing another's id gets their own
      consentUserId(alice),
      consentUserId(consentUserId("Anne Marie")),
      consentUserId("Anne Marie"),
      consentUserId("alice"),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});
