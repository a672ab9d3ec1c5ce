import { describe, expect, it } from "vitest";
import { readBearerToken } from "./readBearerToken.ts";

const request = (headers: Record<string, string> = {}, url = "https://mcp.example.com/mcp") => new Request(url, { method: "POST", headers });

describe("readBearerToken", () => {
  it("reads a bearer token, whatever the scheme's case", () => {
    expect(readBearerToken(request({ authorization: "Bearer abc.DEF-123_~+/=" }))).toEqual({ ok: true, value: { scheme: "bearer", token: "abc.DEF-123_~+/=" } });
    expect(readBearerToken(request({ authorization: "bearer xyz" }))).toEqual({ ok: true, value: { scheme: "bearer", token: "xyz" } });
  });

  it("reads the user:grant:secret tokens of @cloudflare/workers-oauth-provider", () => {
    expect(readBearerToken(request({ authorization: "Bearer alice:py0mmU7-vYTF:noJNbYClr5S9" }))).toEqual({ ok: true, value: { scheme: "bearer", token: "alice:py0mmU7-vYTF:noJNbYClr5S9" } });
  });

  it("reads a token under the DPoP scheme, whatever its case, and says so", () => {
    expect(readBearerToken(request({ authorization: "DPoP abc.def" }))).toEqual({ ok: true, value: { scheme: "dpop", token: "abc.def" } });
    expect(readBearerToken(request({ authorization: "dpop abc.def" }))).toEqual({ ok: true, value: { scheme: "dpop", token: "abc.def" } });
  });

  it("is undefined when the request carries no token", () => {
    expect(readBearerToken(request())).toEqual({ ok: true, value: undefined });
  });

  it("refuses a token in the URL, even beside a header", () => {
    const read = readBearerToken(request({ authorization: "Bearer abc" }, "https://mcp.example.com/mcp?access_token=abc"));
    expect(read.ok).toBe(false);
    if (!read.ok) {
      expect(read.error.status).toBe(400);
      expect(read.error.message).toMatch(/never in the URL/);
    }
  });

  it("refuses other schemes and malformed credentials with 400", () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "DPoP", "DPoP a b", "Bearer two words", 'Bearer "quoted"', `Bearer ${"a".repeat(9_000)}`]) {
      const read = readBearerToken(request({ authorization }));
      expect(read.ok, authorization.slice(0, 20)).toBe(false);
      if (!read.ok) expect(read.error.status).toBe(400);
    }
  });
});
