import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import { META } from "../protocol/metaKeys.ts";
import { classifyBodiless, type Era, eraOfVersionHeader, namesRevision } from "./classifyEra.ts";

/** The era of a POST as the `/mcp` route decides it: the body first, then the version header. */
const classifyEra = (headers: Headers, messages: readonly JsonRpcMessage[], batch: boolean): Era =>
  namesRevision(messages, batch) ? "stateless" : eraOfVersionHeader(headers.get("mcp-protocol-version"), batch);

const LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

const modernMeta = { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} };
const listTools = (params?: Record<string, unknown>): JsonRpcMessage => ({ jsonrpc: "2.0", id: 1, method: "tools/list", ...(params ? { params } : {}) });
const initialize: JsonRpcMessage = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
};

describe("classifyEra", () => {
  it("calls a single request stateless when its _meta names a protocol version, whatever the headers say", () => {
    expect(classifyEra(new Headers(), [listTools({ _meta: modernMeta })], false)).toBe("stateless");
    expect(classifyEra(new Headers({ "MCP-Protocol-Version": "2025-06-18" }), [listTools({ _meta: modernMeta })], false)).toBe("stateless");
    // The spec asks a modern request's Mcp-Session-Id to be ignored, not to put it on a session.
    const withSession = new Headers({ "Mcp-Session-Id": "abc", "MCP-Protocol-Version": "2026-07-28" });
    expect(classifyEra(withSession, [listTools({ _meta: modernMeta })], false)).toBe("stateless");
  });

  it("counts the _meta key even when its value is not a version, so the stateless path can refuse it", () => {
    const notification: JsonRpcMessage = { jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: { [META.protocolVersion]: 7 } } };
    expect(classifyEra(new Headers(), [notification], false)).toBe("stateless");
  });

  it("calls a request stateless when the header names anything but a session revision", () => {
    for (const version of ["2026-07-28", "v999", "2030-01-01"]) {
      expect(classifyEra(new Headers({ "MCP-Protocol-Version": version }), [listTools()], false), version).toBe("stateless");
    }
  });

  it("reads the header name case-insensitively", () => {
    expect(classifyEra(new Headers({ "mcp-protocol-version": "2026-07-28" }), [listTools()], false)).toBe("stateless");
    expect(classifyEra(new Headers({ "MCP-PROTOCOL-VERSION": "2025-06-18" }), [listTools({ _meta: {} })], false)).toBe("session");
  });

  it("puts initialize without a version _meta on a session", () => {
    expect(classifyEra(new Headers(), [initialize], false)).toBe("session");
    expect(classifyEra(new Headers({ "MCP-Protocol-Version": "2025-11-25" }), [initialize], false)).toBe("session");
  });

  it("puts a request with no version anywhere on a session (2025-03-26 clients send none)", () => {
    expect(classifyEra(new Headers(), [listTools()], false)).toBe("session");
    expect(classifyEra(new Headers(), [listTools({ _meta: { progressToken: 1 } })], false)).toBe("session");
    expect(classifyEra(new Headers({ "Mcp-Session-Id": "abc" }), [listTools()], false)).toBe("session");
  });

  it("puts every session-era header revision on a session", () => {
    for (const version of LEGACY_VERSIONS) {
      expect(classifyEra(new Headers({ "MCP-Protocol-Version": version, "Mcp-Session-Id": "abc" }), [listTools()], false), version).toBe("session");
    }
  });

  it("puts a batch on a session whatever its header or _meta says", () => {
    const modernHeader = new Headers({ "MCP-Protocol-Version": "2026-07-28" });
    expect(classifyEra(modernHeader, [listTools(), listTools()], true)).toBe("session");
    expect(classifyEra(modernHeader, [listTools({ _meta: modernMeta })], true)).toBe("session");
    expect(classifyEra(new Headers(), [listTools({ _meta: modernMeta }), listTools({ _meta: modernMeta })], true)).toBe("session");
  });

  it("does not read _meta from a response, only the header", () => {
    const response = { jsonrpc: "2.0", id: 1, result: { _meta: modernMeta } } as JsonRpcMessage;
    expect(classifyEra(new Headers(), [response], false)).toBe("session");
    expect(classifyEra(new Headers({ "MCP-Protocol-Version": "2026-07-28" }), [response], false)).toBe("stateless");
  });
});

describe("classifyBodiless", () => {
  it("is stateless only when the header names 2026-07-28; an unknown one stays on the session path (and gets 400 there)", () => {
    expect(classifyBodiless(new Headers({ "MCP-Protocol-Version": "2026-07-28" }))).toBe("stateless");
    expect(classifyBodiless(new Headers({ "MCP-Protocol-Version": "v999" }))).toBe("session");
    expect(classifyBodiless(new Headers({ "MCP-Protocol-Version": "1999-01-01" }))).toBe("session");
    expect(classifyBodiless(new Headers())).toBe("session");
    expect(classifyBodiless(new Headers({ "Mcp-Session-Id": "abc" }))).toBe("session");
    for (const version of LEGACY_VERSIONS) {
      expect(classifyBodiless(new Headers({ "MCP-Protocol-Version": version })), version).toBe("session");
    }
  });
});
