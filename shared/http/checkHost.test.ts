import { describe, expect, it } from "vitest";
import { PASSED } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { checkHost } from "./checkHost.ts";

const loopback = ["localhost", "127.0.0.1", "[::1]"];

describe("checkHost", () => {
  it("lets any host through when no list is configured", () => {
    expect(checkHost(new Request("http://evil.test:8787/sse"), [])).toEqual(PASSED);
  });

  it("accepts the listed names on any port", () => {
    for (const url of ["http://localhost:8787/mcp", "http://127.0.0.1/sse", "http://[::1]:3000/mcp", "http://LOCALHOST:1/"]) {
      expect(checkHost(new Request(url), loopback).ok, url).toBe(true);
    }
  });

  it("refuses a rebound name with 403 and a JSON-RPC error naming it", () => {
    const checked = checkHost(new Request("http://evil.test:8787/sse"), loopback);
    const error = checked.ok ? undefined : checked.error;
    expect(error?.status).toBe(403);
    expect(error?.code).toBe(ErrorCode.InvalidRequest);
    expect(error?.message).toMatch(/^Host "evil.test" is not allowed; add it to ALLOWED_HOSTS/);
    expect(checkHost(new Request("http://localhost.evil.test/"), loopback).ok).toBe(false);
  });
});
