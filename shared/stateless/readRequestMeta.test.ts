import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { accepted, refusal } from "../testing/testKit.ts";
import { META } from "../protocol/metaKeys.ts";
import { readRequestMeta } from "./readRequestMeta.ts";

const VERSION = "2026-07-28";
const versionHeader = (value = VERSION) => new Headers({ "MCP-Protocol-Version": value });
const meta = (extra: Record<string, unknown> = {}) => ({ [META.protocolVersion]: VERSION, [META.clientCapabilities]: {}, ...extra });

describe("readRequestMeta", () => {
  it("reads the required keys of a well-formed request", () => {
    const capabilities = { sampling: {}, elicitation: { form: {} } };
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta({ [META.clientCapabilities]: capabilities }) }))).toEqual({
      protocolVersion: VERSION,
      clientCapabilities: capabilities,
    });
  });

  it("refuses a missing MCP-Protocol-Version header with -32020 and 400 before looking at the body", () => {
    for (const params of [{ _meta: meta() }, {}, undefined]) {
      const error = refusal(readRequestMeta(new Headers(), params));
      expect(error.code).toBe(ErrorCode.HeaderMismatch);
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/MCP-Protocol-Version/);
    }
  });

  it("refuses missing _meta, protocol version or client capabilities with -32602 and 400", () => {
    const cases: [string, Record<string, unknown> | undefined][] = [
      ["no params", undefined],
      ["no _meta", {}],
      ["_meta not an object", { _meta: "2026-07-28" }],
      ["_meta an array", { _meta: [] }],
      ["no protocol version", { _meta: { [META.clientCapabilities]: {} } }],
      ["protocol version not a string", { _meta: meta({ [META.protocolVersion]: 20260728 }) }],
      ["no client capabilities", { _meta: { [META.protocolVersion]: VERSION } }],
      ["client capabilities null", { _meta: meta({ [META.clientCapabilities]: null }) }],
      ["client capabilities an array", { _meta: meta({ [META.clientCapabilities]: [] }) }],
    ];
    for (const [what, params] of cases) {
      const error = refusal(readRequestMeta(versionHeader(), params));
      expect(error.code, what).toBe(ErrorCode.InvalidParams);
      expect(error.status, what).toBe(400);
    }
  });

  it("names the missing key in the message", () => {
    expect(refusal(readRequestMeta(versionHeader(), { _meta: { [META.clientCapabilities]: {} } })).message).toContain(META.protocolVersion);
    expect(refusal(readRequestMeta(versionHeader(), { _meta: { [META.protocolVersion]: VERSION } })).message).toContain(META.clientCapabilities);
  });

  it("refuses a header that disagrees with _meta with -32020 and 400", () => {
    const error = refusal(readRequestMeta(versionHeader("2025-11-25"), { _meta: meta() }));
    expect(error.code).toBe(ErrorCode.HeaderMismatch);
    expect(error.status).toBe(400);
    expect(error.message).toContain('"2025-11-25"');
  });

  it("refuses a version it does not serve with -32022, listing the supported ones", () => {
    const error = refusal(readRequestMeta(versionHeader("v999"), { _meta: meta({ [META.protocolVersion]: "v999" }) }));
    expect(error.code).toBe(ErrorCode.UnsupportedProtocolVersion);
    expect(error.status).toBe(400);
    expect(error.data).toEqual({ supported: ["2026-07-28"], requested: "v999" });
    expect(error.toJsonRpc()).toEqual({ code: -32022, message: error.message, data: { supported: ["2026-07-28"], requested: "v999" } });
  });

  it("reports a header and _meta mismatch before an unsupported version", () => {
    expect(refusal(readRequestMeta(versionHeader(), { _meta: meta({ [META.protocolVersion]: "v999" }) })).code).toBe(ErrorCode.HeaderMismatch);
    expect(refusal(readRequestMeta(versionHeader("v999"), { _meta: meta() })).code).toBe(ErrorCode.HeaderMismatch);
  });

  it("reports missing _meta keys before a header mismatch", () => {
    expect(refusal(readRequestMeta(versionHeader("v999"), { _meta: { [META.protocolVersion]: VERSION } })).code).toBe(ErrorCode.InvalidParams);
  });

  it("keeps clientInfo only when it has a string name and version", () => {
    const info = { name: "client", version: "1.2.3", title: "Client" };
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta({ [META.clientInfo]: info }) })).clientInfo).toEqual(info);
    for (const broken of [{ name: "client" }, { version: "1" }, { name: 1, version: "1" }, "client", null, []]) {
      const result = accepted(readRequestMeta(versionHeader(), { _meta: meta({ [META.clientInfo]: broken }) }));
      expect(result, JSON.stringify(broken)).not.toHaveProperty("clientInfo");
    }
  });

  it("keeps a valid log level and refuses an invalid one with -32602", () => {
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta({ [META.logLevel]: "warning" }) })).logLevel).toBe("warning");
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta() }))).not.toHaveProperty("logLevel");
    for (const level of ["loud", "WARNING", null, 3]) {
      const error = refusal(readRequestMeta(versionHeader(), { _meta: meta({ [META.logLevel]: level }) }));
      expect(error.code, String(level)).toBe(ErrorCode.InvalidParams);
      expect(error.status).toBe(400);
    }
  });

  it("reads a string or number progressToken from _meta and ignores any other", () => {
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta({ progressToken: "p-1" }) })).progressToken).toBe("p-1");
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta({ progressToken: 0 }) })).progressToken).toBe(0);
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta({ progressToken: { id: 1 } }) }))).not.toHaveProperty("progressToken");
    expect(accepted(readRequestMeta(versionHeader(), { _meta: meta(), progressToken: "outside _meta" }))).not.toHaveProperty("progressToken");
  });

  it("skips the header checks for a transport with no header layer (stdio), and still checks the body", () => {
    expect(accepted(readRequestMeta(undefined, { _meta: meta() })).protocolVersion).toBe(VERSION);
    expect(refusal(readRequestMeta(undefined, { _meta: { [META.protocolVersion]: VERSION } })).code).toBe(ErrorCode.InvalidParams);
    expect(refusal(readRequestMeta(undefined, { _meta: meta({ [META.protocolVersion]: "v999" }) })).code).toBe(ErrorCode.UnsupportedProtocolVersion);
  });
});
