import { describe, it, expect } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { requireJsonContentType, requireSessionId } from "./guards.ts";

const withType = (contentType?: string) =>
  new Request("http://x", { method: "POST", body: "{}", headers: contentType === undefined ? {} : { "content-type": contentType } });

describe("requireJsonContentType", () => {
  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON; Charset=UTF-8",
    'application/json;charset="utf-8"',
    "application/json; charset=utf8",
  ])("lets %j through", (contentType) => {
    expect(requireJsonContentType(withType(contentType))).toBeUndefined();
  });

  it.each([
    ["text/plain", "text/plain", /got "text\/plain"/],
    ["a JSON look-alike", "application/jsonp", /must be application\/json/],
    ["a non-UTF-8 charset", "application/json; charset=latin1", /Only UTF-8 JSON is accepted, got charset "latin1"/],
  ])("refuses %s with 415", (_name, contentType, message) => {
    const error = requireJsonContentType(withType(contentType));
    expect(error?.status).toBe(415);
    expect(error?.code).toBe(ErrorCode.InvalidRequest);
    expect(error?.message).toMatch(message);
  });

  it("refuses a missing Content-Type with 415, saying so", () => {
    // A string body would get text/plain by default, so send bytes to have no header at all.
    const request = new Request("http://x", { method: "POST", body: new Uint8Array([0x7b, 0x7d]) });
    expect(request.headers.get("content-type")).toBeNull();
    const error = requireJsonContentType(request);
    expect(error?.status).toBe(415);
    expect(error?.message).toContain("got none");
  });
});

describe("requireSessionId", () => {
  const id = "0123456789abcdef0123456789abcdef";

  it("accepts 32 lowercase hex digits", () => {
    expect(requireSessionId(new URL(`http://x/message?sessionId=${id}`))).toEqual({ ok: true, sessionId: id });
  });

  it.each([
    ["missing", "http://x/message"],
    ["empty", "http://x/message?sessionId="],
  ])("refuses a %s id with 400", (_name, url) => {
    const result = requireSessionId(new URL(url));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.status).toBe(400);
      expect(result.error.message).toContain("Missing sessionId");
    }
  });

  it.each([
    ["uppercase", id.toUpperCase()],
    ["too short", id.slice(1)],
    ["too long", id + "0"],
    ["not hex", id.slice(1) + "g"],
    ["a path trick", "../" + id.slice(3)],
  ])("refuses an id that is %s with 400", (_name, sessionId) => {
    const result = requireSessionId(new URL(`http://x/message?sessionId=${encodeURIComponent(sessionId)}`));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.status).toBe(400);
      expect(result.error.code).toBe(ErrorCode.InvalidRequest);
      expect(result.error.message).toContain("Malformed sessionId");
    }
  });
});
