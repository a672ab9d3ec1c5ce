import { describe, it, expect } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { refusal } from "../testing/testKit.ts";
import { requireAccept, requireJsonContentType, requireMcpSessionId, requireProtocolVersion, requireSessionId } from "./guards.ts";



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
    expect(requireJsonContentType(withType(contentType)).ok).toBe(true);
  });

  it.each([
    ["text/plain", "text/plain", /got "text\/plain"/],
    ["a JSON look-alike", "application/jsonp", /must be application\/json/],
    ["a non-UTF-8 charset", "application/json; charset=latin1", /Only UTF-8 JSON is accepted, got charset "latin1"/],
  ])("refuses %s with 415", (_name, contentType, message) => {
    const error = refusal(requireJsonContentType(withType(contentType)));
    expect(error?.status).toBe(415);
    expect(error?.code).toBe(ErrorCode.InvalidRequest);
    expect(error?.message).toMatch(message);
  });

  it("refuses a missing Content-Type with 415, saying so", () => {
    // A string body would get text/plain by default, so send bytes to have no header at all.
    const request = new Request("http://x", { method: "POST", body: new Uint8Array([0x7b, 0x7d]) });
    expect(request.headers.get("content-type")).toBeNull();
    const error = refusal(requireJsonContentType(request));
    expect(error?.status).toBe(415);
    expect(error?.message).toContain("got none");
  });
});

describe("requireSessionId", () => {
  const id = "0123456789abcdef0123456789abcdef";

  it("accepts 32 lowercase hex digits", () => {
    expect(requireSessionId(new URL(`http://x/message?sessionId=${id}`))).toEqual({ ok: true, value: id });
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

describe("requireMcpSessionId", () => {
  const id = "0123456789abcdef0123456789abcdef";
  const withSession = (value?: string) => new Request("http://x/mcp", { headers: value === undefined ? {} : { "mcp-session-id": value } });

  it("hands on a well-formed id", () => {
    expect(requireMcpSessionId(withSession(id))).toEqual({ ok: true, value: id });
  });
  it("refuses a missing header with 400 and an id we could not have minted with 404", () => {
    expect(refusal(requireMcpSessionId(withSession()))?.status).toBe(400);
    expect(refusal(requireMcpSessionId(withSession("")))?.status).toBe(400);
    const foreign = refusal(requireMcpSessionId(withSession("not-ours")));
    expect(foreign?.status).toBe(404);
    expect(foreign?.message).toMatch(/initialize a new one/);
  });
});

describe("requireAccept", () => {
  const needed = ["application/json", "text/event-stream"];
  const accepting = (accept?: string) => new Request("http://x/mcp", { headers: accept === undefined ? {} : { accept } });

  it.each(["application/json, text/event-stream", "text/event-stream;q=0.9, application/json", "*/*", "application/*, text/*"])("lets %j through", (accept) => {
    expect(requireAccept(accepting(accept), needed).ok).toBe(true);
  });
  it("refuses with 406, naming what is missing", () => {
    const error = refusal(requireAccept(accepting("application/json"), needed));
    expect(error?.status).toBe(406);
    expect(error?.message).toBe("Accept must include application/json and text/event-stream; missing text/event-stream");
    expect(refusal(requireAccept(accepting(), needed))?.message).toMatch(/missing application\/json, text\/event-stream/);
    // Look-alikes that contain a needed type are not it.
    for (const accept of ["application/jsonp, text/event-stream", "xapplication/json, text/event-stream", "application/json, text/event-streams"]) {
      expect(requireAccept(accepting(accept), needed).ok, accept).toBe(false);
    }
  });
});

describe("requireProtocolVersion", () => {
  const versioned = (version?: string) => new Request("http://x/mcp", { headers: version === undefined ? {} : { "mcp-protocol-version": version } });

  it("reads an absent header as 2025-03-26, for backwards compatibility", () => {
    expect(requireProtocolVersion(versioned())).toEqual({ ok: true, value: "2025-03-26" });
  });
  it("hands on a supported version", () => {
    expect(requireProtocolVersion(versioned("2025-06-18"))).toEqual({ ok: true, value: "2025-06-18" });
  });
  it("refuses an unsupported one with 400, listing what is supported", () => {
    const error = refusal(requireProtocolVersion(versioned("1999-01-01")));
    expect(error?.status).toBe(400);
    expect(error?.code).toBe(ErrorCode.InvalidRequest);
    expect(error?.message).toMatch(/^Unsupported MCP-Protocol-Version "1999-01-01"; supported: .*2025-06-18/);
  });
});
