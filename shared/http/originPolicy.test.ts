import { describe, expect, it } from "vitest";
import { preflight, withCors } from "./cors.ts";
import { checkOrigin, isAllowedOrigin, isLoopbackHost } from "./originPolicy.ts";

const local = new URL("http://127.0.0.1:8787/mcp");
const deployed = new URL("https://mcp.example.com/mcp");
const none = { allowed: [] as string[] };

describe("isLoopbackHost", () => {
  it.each(["localhost", "LOCALHOST", "app.localhost", "127.0.0.1", "127.8.9.10", "[::1]", "::1"])("%s is loopback", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(["example.com", "localhost.example.com", "10.0.0.1", "128.0.0.1", "0.0.0.0"])("%s is not", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("isAllowedOrigin", () => {
  it("allows loopback origins only when the server itself is reached on loopback", () => {
    expect(isAllowedOrigin("http://localhost:6274", local, none)).toBe(true);
    expect(isAllowedOrigin("http://localhost:6274", deployed, none)).toBe(false);
  });
  it("refuses a DNS-rebinding origin even though it names the request's own host", () => {
    expect(isAllowedOrigin("http://evil.test:8787", new URL("http://evil.test:8787/mcp"), none)).toBe(false);
    expect(isAllowedOrigin("http://evil.test", local, none)).toBe(false);
  });
  it("allows listed origins exactly, and anything with *", () => {
    const policy = { allowed: ["https://app.example.com"] };
    expect(isAllowedOrigin("https://app.example.com", deployed, policy)).toBe(true);
    expect(isAllowedOrigin("https://app.example.com.evil.test", deployed, policy)).toBe(false);
    expect(isAllowedOrigin("http://app.example.com", deployed, policy)).toBe(false);
    expect(isAllowedOrigin("https://anything.test", deployed, { allowed: "*" })).toBe(true);
  });
  it("refuses opaque and malformed origins", () => {
    expect(isAllowedOrigin("null", local, none)).toBe(false);
    expect(isAllowedOrigin("file://", local, none)).toBe(false);
    expect(isAllowedOrigin("not a url", local, none)).toBe(false);
  });
});

describe("checkOrigin", () => {
  it("lets requests without Origin through", () => {
    expect(checkOrigin(new Request(deployed), none).ok).toBe(true);
  });
  it("answers a foreign Origin with 403 and a JSON-RPC error", () => {
    const checked = checkOrigin(new Request(local, { headers: { origin: "http://evil.test" } }), none);
    const error = checked.ok ? undefined : checked.error;
    expect(error?.status).toBe(403);
    expect(error?.toJsonRpc().message).toMatch(/not allowed/);
  });
});

describe("CORS", () => {
  const policy = { allowed: ["https://app.example.com"] };
  it("answers a preflight from an allowed origin with the MCP headers allowed", () => {
    const response = preflight(
      new Request(deployed, { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-headers": "X-Custom, content-type" } }),
      policy,
    )!;
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE, OPTIONS");
    expect(response.headers.get("access-control-allow-headers")).toContain("mcp-session-id");
    expect(response.headers.get("access-control-allow-headers")).toContain("x-custom");
  });
  it("answers a preflight from a foreign origin without CORS grants", () => {
    const response = preflight(new Request(deployed, { method: "OPTIONS", headers: { origin: "https://evil.test" } }), policy)!;
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
  it("ignores non-OPTIONS requests", () => {
    expect(preflight(new Request(deployed), policy)).toBeUndefined();
  });
  it("decorates responses to allowed origins, errors included, and exposes Mcp-Session-Id", async () => {
    const request = new Request(deployed, { headers: { origin: "https://app.example.com" } });
    const response = withCors(Response.json({ error: 1 }, { status: 404 }), request, policy);
    expect(response.status).toBe(404);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(response.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
    expect(await response.json()).toEqual({ error: 1 });
    const plain = Response.json({});
    expect(withCors(plain, new Request(deployed), policy)).toBe(plain);
  });
});
