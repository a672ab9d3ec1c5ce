import { describe, expect, it } from "vitest";
import { clientAddress } from "./clientAddress.ts";

const request = (headers: Record<string, string>) => new Request("http://127.0.0.1:8787/mcp", { headers });

describe("clientAddress", () => {
  it("is the runtime's own address when no proxy is trusted, whatever the headers claim", () => {
    expect(clientAddress(request({ "x-forwarded-for": "203.0.113.1" }), undefined, "10.0.0.2")).toBe("10.0.0.2");
    expect(clientAddress(request({}), undefined, undefined)).toBeUndefined();
  });

  it("takes the right-most X-Forwarded-For entry: the one the trusted proxy appended", () => {
    const xff = (value: string) => clientAddress(request({ "x-forwarded-for": value }), "x-forwarded-for", "10.0.0.2");
    expect(xff("203.0.113.7")).toBe("203.0.113.7");
    expect(xff("198.51.100.1, 203.0.113.7")).toBe("203.0.113.7");
    expect(xff("spoofed, 198.51.100.1,2001:db8::1")).toBe("2001:db8::1");
    expect(xff("198.51.100.1 ,  203.0.113.8  ")).toBe("203.0.113.8");
  });

  it("reads X-Real-IP and CF-Connecting-IP as they are", () => {
    expect(clientAddress(request({ "x-real-ip": "203.0.113.9" }), "x-real-ip", "10.0.0.2")).toBe("203.0.113.9");
    expect(clientAddress(request({ "cf-connecting-ip": "2001:db8::5" }), "cf-connecting-ip", undefined)).toBe("2001:db8::5");
  });

  it("falls back to the runtime's address when the header is missing or holds no IP address (never a key of the sender's choosing)", () => {
    for (const value of ["", " ", "unknown", "x".repeat(10_000), "203.0.113.7; drop", "a, "]) {
      expect(clientAddress(request({ "x-forwarded-for": value }), "x-forwarded-for", "10.0.0.2"), value.slice(0, 20)).toBe("10.0.0.2");
    }
    expect(clientAddress(request({}), "x-real-ip", "10.0.0.2")).toBe("10.0.0.2");
  });
});
