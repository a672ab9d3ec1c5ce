/**
 * `node/requestUrl`: the Host header names the server and the target only the path, whatever the
 * target looks like; what cannot be read that way is a sentence for a 400.
 */
import { describe, expect, it } from "vitest";
import { requestUrl } from "../../node/requestUrl.ts";

const href = (host: string | undefined, target: string) => {
  const url = requestUrl(host, target);
  return url instanceof URL ? url.href : url.refused;
};

describe("requestUrl", () => {
  it("takes the authority from Host and the path and query from an origin-form target", () => {
    expect(href("localhost:8787", "/mcp?x=1")).toBe("http://localhost:8787/mcp?x=1");
    expect(href("LOCALHOST", "/")).toBe("http://localhost/");
    expect(href("[::1]:8787", "/health")).toBe("http://[::1]:8787/health");
    expect(href(undefined, "/health")).toBe("http://localhost/health");
  });

  it("keeps a target's leading // or /\\ a path under Host, never another authority", () => {
    expect(href("evil.test", "//localhost:8787/health")).toBe("http://evil.test//localhost:8787/health");
    expect(href("evil.test", "/\\localhost:8787/health")).toBe("http://evil.test//localhost:8787/health");
  });

  it("serves an absolute-form target naming Host's authority as its path, and refuses one naming another", () => {
    expect(href("127.0.0.1:8787", "http://127.0.0.1:8787/health?a")).toBe("http://127.0.0.1:8787/health?a");
    expect(href("evil.test", "http://localhost:8787/health")).toBe("Bad Request: the request target names another host than the Host header");
    expect(href("localhost", "http://localhost:8787/health")).toBe("Bad Request: the request target names another host than the Host header");
  });

  it("refuses a target that is not a path, and a Host that is not host[:port]", () => {
    for (const target of ["*", "localhost:8787", "ftp://localhost/", ""]) expect(href("localhost", target)).toBe("Bad Request: the request target is not a path");
    for (const host of ["a/b", "user@localhost", "localhost?x", "localhost#x", "local host", ""]) expect(href(host, "/health")).toBe("Bad Request: the Host header is not a host name");
  });
});
