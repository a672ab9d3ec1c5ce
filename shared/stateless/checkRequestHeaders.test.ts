import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import type { McpError } from "../errors/McpError.ts";
import type { Checked } from "../errors/Checked.ts";
import { refusal } from "../testing/testKit.ts";
import type { ParamHeader } from "../schema/paramHeaders.ts";
import { checkRequestHeaders } from "./checkRequestHeaders.ts";

/** Asserts the HeaderMismatch face of a refusal: -32020 and HTTP 400. */
function expectMismatch(run: () => Checked): McpError {
  const error = refusal(run());
  expect(error.code).toBe(ErrorCode.HeaderMismatch);
  expect(error.status).toBe(400);
  return error;
}

const b64 = (text: string) => `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}?=`;

describe("checkRequestHeaders: Mcp-Method", () => {
  it("accepts a matching Mcp-Method", () => {
    expect(checkRequestHeaders(new Headers({ "Mcp-Method": "tools/list" }), "tools/list", {}).ok).toBe(true);
  });

  it("requires Mcp-Method on every request", () => {
    expect(expectMismatch(() => checkRequestHeaders(new Headers(), "tools/list", {})).message).toMatch(/Mcp-Method header is required/);
    expectMismatch(() => checkRequestHeaders(new Headers(), "ping", {}));
  });

  it("compares the value case-sensitively", () => {
    const error = expectMismatch(() => checkRequestHeaders(new Headers({ "Mcp-Method": "TOOLS/LIST" }), "tools/list", {}));
    expect(error.message).toContain('"TOOLS/LIST"');
    expectMismatch(() => checkRequestHeaders(new Headers({ "Mcp-Method": "prompts/list" }), "tools/list", {}));
  });

  it("matches header names case-insensitively", () => {
    for (const name of ["mcp-method", "MCP-METHOD", "mCp-MeThOd"]) {
      expect(checkRequestHeaders(new Headers({ [name]: "tools/list" }), "tools/list", {}).ok, name).toBe(true);
    }
  });

  it("trims whitespace around values", () => {
    expect(checkRequestHeaders(new Headers({ "Mcp-Method": "  tools/list\t" }), "tools/list", {}).ok).toBe(true);
  });
});

describe("checkRequestHeaders: Mcp-Name", () => {
  const cases = [
    { method: "tools/call", params: { name: "echo" }, value: "echo" },
    { method: "prompts/get", params: { name: "greet" }, value: "greet" },
    { method: "resources/read", params: { uri: "file:///a.txt" }, value: "file:///a.txt" },
  ];

  it("accepts Mcp-Name mirroring name (tools/call, prompts/get) or uri (resources/read)", () => {
    for (const { method, params, value } of cases) {
      expect(checkRequestHeaders(new Headers({ "Mcp-Method": method, "mcp-name": value }), method, params).ok, method).toBe(true);
    }
  });

  it("requires Mcp-Name on those three methods", () => {
    for (const { method, params } of cases) {
      expect(expectMismatch(() => checkRequestHeaders(new Headers({ "Mcp-Method": method }), method, params)).message, method).toContain(
        `Mcp-Name header is required for ${method}`,
      );
    }
  });

  it("refuses an Mcp-Name that disagrees with the body", () => {
    expectMismatch(() => checkRequestHeaders(new Headers({ "Mcp-Method": "tools/call", "Mcp-Name": "other" }), "tools/call", { name: "echo" }));
    expectMismatch(() => checkRequestHeaders(new Headers({ "Mcp-Method": "tools/call", "Mcp-Name": "ECHO" }), "tools/call", { name: "echo" }));
    // resources/read mirrors the uri, not a name.
    expectMismatch(() =>
      checkRequestHeaders(new Headers({ "Mcp-Method": "resources/read", "Mcp-Name": "readme" }), "resources/read", { name: "readme", uri: "file:///a" }),
    );
  });

  it("does not require Mcp-Name on other methods", () => {
    for (const method of ["tools/list", "prompts/list", "resources/list", "completion/complete", "server/discover"]) {
      expect(checkRequestHeaders(new Headers({ "Mcp-Method": method }), method, { name: "x" }).ok, method).toBe(true);
    }
  });

  it("trims whitespace around the name", () => {
    expect(checkRequestHeaders(new Headers({ "Mcp-Method": "tools/call", "Mcp-Name": " echo " }), "tools/call", { name: "echo" }).ok).toBe(true);
  });
});

describe("checkRequestHeaders: the =?base64?…?= form", () => {
  const toolCall = (name: string) => new Headers({ "Mcp-Method": "tools/call", "Mcp-Name": name });

  it("decodes a base64 value before comparing", () => {
    expect(checkRequestHeaders(toolCall("=?base64?SGVsbG8=?="), "tools/call", { name: "Hello" }).ok).toBe(true);
    expectMismatch(() => checkRequestHeaders(toolCall("=?base64?SGVsbG8=?="), "tools/call", { name: "=?base64?SGVsbG8=?=" }));
  });

  it("decodes UTF-8 text and keeps whitespace inside the encoding", () => {
    expect(checkRequestHeaders(toolCall(b64("Grüße, 世界")), "tools/call", { name: "Grüße, 世界" }).ok).toBe(true);
    expect(checkRequestHeaders(toolCall(b64(" padded ")), "tools/call", { name: " padded " }).ok).toBe(true);
    // The plain form cannot carry the spaces: Headers and the check both trim them.
    expectMismatch(() => checkRequestHeaders(toolCall(" padded "), "tools/call", { name: " padded " }));
  });

  it("decodes the encoded form of a value that itself looks like the sentinel", () => {
    expect(checkRequestHeaders(toolCall(b64("=?base64?literal?=")), "tools/call", { name: "=?base64?literal?=" }).ok).toBe(true);
  });

  it("refuses malformed base64 with -32020", () => {
    for (const value of ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?=", "=?base64?SGVsb===?=", "=?base64?SG==SGVs?=", "=?base64?SGVs bG8=?="]) {
      expect(expectMismatch(() => checkRequestHeaders(toolCall(value), "tools/call", { name: "Hello" })).message, value).toMatch(/malformed base64/);
    }
  });

  it("refuses base64 that does not decode to UTF-8 text with -32020", () => {
    expect(expectMismatch(() => checkRequestHeaders(toolCall("=?base64?/w==?="), "tools/call", { name: "\uFFFD" })).message).toMatch(/not UTF-8/);
  });

  it("takes values that merely look like base64 literally", () => {
    expect(checkRequestHeaders(toolCall("SGVsbG8="), "tools/call", { name: "SGVsbG8=" }).ok).toBe(true);
    expect(checkRequestHeaders(toolCall("=?base64?SGVsbG8="), "tools/call", { name: "=?base64?SGVsbG8=" }).ok).toBe(true);
    expect(checkRequestHeaders(toolCall("SGVsbG8=?="), "tools/call", { name: "SGVsbG8=?=" }).ok).toBe(true);
  });

  it("decodes Mcp-Method and Mcp-Param-* values too", () => {
    expect(checkRequestHeaders(new Headers({ "Mcp-Method": b64("tools/list") }), "tools/list", {}).ok).toBe(true);
    const headers = new Headers({ "Mcp-Method": "tools/call", "Mcp-Name": "t", "Mcp-Param-City": b64("Zürich") });
    expect(checkRequestHeaders(headers, "tools/call", { name: "t", arguments: { city: "Zürich" } }, [{ path: ["city"], name: "City", type: "string" }]).ok).toBe(true);
  });
});

describe("checkRequestHeaders: Mcp-Param-*", () => {
  const call = (args: Record<string, unknown> | undefined, params: Record<string, string>, declared: ParamHeader[]) =>
    checkRequestHeaders(new Headers({ "Mcp-Method": "tools/call", "Mcp-Name": "t", ...params }), "tools/call", args === undefined ? { name: "t" } : { name: "t", arguments: args }, declared);
  const region: ParamHeader[] = [{ path: ["region"], name: "Region", type: "string" }];
  const count: ParamHeader[] = [{ path: ["count"], name: "Count", type: "integer" }];
  const dryRun: ParamHeader[] = [{ path: ["dryRun"], name: "Dry-Run", type: "boolean" }];

  it("accepts string, integer and boolean values that match the arguments", () => {
    expect(call({ region: "eu-west-1" }, { "Mcp-Param-Region": "eu-west-1" }, region).ok).toBe(true);
    expect(call({ count: 42 }, { "Mcp-Param-Count": "42" }, count).ok).toBe(true);
    expect(call({ count: -7 }, { "Mcp-Param-Count": "-7" }, count).ok).toBe(true);
    expect(call({ count: 0 }, { "Mcp-Param-Count": "0" }, count).ok).toBe(true);
    expect(call({ dryRun: true }, { "Mcp-Param-Dry-Run": "true" }, dryRun).ok).toBe(true);
    expect(call({ dryRun: false }, { "Mcp-Param-Dry-Run": "false" }, dryRun).ok).toBe(true);
  });

  it("matches the Mcp-Param- header name case-insensitively", () => {
    expect(call({ region: "eu" }, { "mcp-param-region": "eu" }, region).ok).toBe(true);
    expect(call({ region: "eu" }, { "MCP-PARAM-REGION": "eu" }, region).ok).toBe(true);
  });

  it("refuses values that disagree with the arguments", () => {
    expect(expectMismatch(() => call({ region: "eu" }, { "Mcp-Param-Region": "us" }, region)).message).toContain("Mcp-Param-Region");
    expectMismatch(() => call({ region: "eu" }, { "Mcp-Param-Region": "EU" }, region));
    expectMismatch(() => call({ count: 42 }, { "Mcp-Param-Count": "43" }, count));
    expectMismatch(() => call({ count: 42 }, { "Mcp-Param-Count": "42.0" }, count));
    expectMismatch(() => call({ count: 42 }, { "Mcp-Param-Count": "4.2e1" }, count));
    expectMismatch(() => call({ count: 42 }, { "Mcp-Param-Count": "0x2a" }, count));
    expectMismatch(() => call({ count: 42 }, { "Mcp-Param-Count": "forty-two" }, count));
    expectMismatch(() => call({ dryRun: true }, { "Mcp-Param-Dry-Run": "false" }, dryRun));
    expectMismatch(() => call({ dryRun: true }, { "Mcp-Param-Dry-Run": "True" }, dryRun));
    expectMismatch(() => call({ dryRun: true }, { "Mcp-Param-Dry-Run": "1" }, dryRun));
  });

  it("compares a string argument as text, not as a number", () => {
    const code: ParamHeader[] = [{ path: ["code"], name: "Code", type: "string" }];
    expect(call({ code: "007" }, { "Mcp-Param-Code": "007" }, code).ok).toBe(true);
    expectMismatch(() => call({ code: "007" }, { "Mcp-Param-Code": "7" }, code));
  });

  it("requires the header when the argument is present", () => {
    expect(expectMismatch(() => call({ region: "eu" }, {}, region)).message).toMatch(/Mcp-Param-Region header is required/);
    expectMismatch(() => call({ count: 0 }, {}, count));
    expectMismatch(() => call({ dryRun: false }, {}, dryRun));
    expectMismatch(() => call({ region: "" }, {}, region));
  });

  it("refuses the header when the argument is absent or null", () => {
    expect(expectMismatch(() => call({}, { "Mcp-Param-Region": "eu" }, region)).message).toMatch(/was sent but argument region is absent/);
    expectMismatch(() => call(undefined, { "Mcp-Param-Region": "eu" }, region));
    expectMismatch(() => call({ region: null }, { "Mcp-Param-Region": "null" }, region));
  });

  it("needs nothing when the argument and its header are both absent", () => {
    expect(call({}, {}, region).ok).toBe(true);
    expect(call(undefined, {}, [...region, ...count, ...dryRun]).ok).toBe(true);
  });

  it("follows nested argument paths", () => {
    const nested: ParamHeader[] = [{ path: ["target", "location", "region"], name: "Region", type: "string" }];
    expect(call({ target: { location: { region: "eu" } } }, { "Mcp-Param-Region": "eu" }, nested).ok).toBe(true);
    expectMismatch(() => call({ target: { location: { region: "eu" } } }, { "Mcp-Param-Region": "us" }, nested));
    expectMismatch(() => call({ target: { location: { region: "eu" } } }, {}, nested));
    // An absent parent means an absent argument.
    expect(call({ target: {} }, {}, nested).ok).toBe(true);
    expect(call({ target: "flat" }, {}, nested).ok).toBe(true);
    expectMismatch(() => call({ target: {} }, { "Mcp-Param-Region": "eu" }, nested));
  });

  it("checks every declared header, not just the first", () => {
    const both = [...region, ...count];
    expect(call({ region: "eu", count: 3 }, { "Mcp-Param-Region": "eu", "Mcp-Param-Count": "3" }, both).ok).toBe(true);
    expectMismatch(() => call({ region: "eu", count: 3 }, { "Mcp-Param-Region": "eu", "Mcp-Param-Count": "4" }, both));
    expectMismatch(() => call({ region: "eu", count: 3 }, { "Mcp-Param-Region": "eu" }, both));
  });

  it("ignores Mcp-Param-* headers nobody declared", () => {
    expect(call({ region: "eu" }, { "Mcp-Param-Other": "x" }, []).ok).toBe(true);
  });

  it("refuses a malformed base64 Mcp-Param value", () => {
    expect(expectMismatch(() => call({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8?=" }, region)).message).toMatch(/malformed base64/);
  });
});
