import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { Logger } from "../log/Logger.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { mcpError, stubContext } from "../testing/testKit.ts";
import { MAX_SUBSCRIPTIONS, sessionMethods } from "./sessionMethods.ts";
import type { SessionRecord } from "./SessionRecord.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const withResources = new CompiledServer({
  name: "resources",
  version: "1",
  resources: [resource({ uri: "test://static-text", name: "static-text", read: async () => "hello" })],
  resourceTemplates: [resourceTemplate({ uriTemplate: "test://template/{id}/data", name: "template-data", read: async () => "t" })],
});

/** The methods of a session of `server`, its record, and every record update they stored. */
function session(server: CompiledServer = withResources) {
  let record: SessionRecord = { id: "s", transport: "sse", createdAt: 0 };
  const updates: Partial<SessionRecord>[] = [];
  const methods = sessionMethods({
    server,
    log: new Logger("error", {}, () => {}),
    get record() {
      return record;
    },
    update: async (patch) => {
      updates.push(patch);
      record = { ...record, ...patch };
    },
  });
  const call = (method: string, params: Record<string, unknown> = {}) => methods[method]!(params, stubContext());
  return { call, updates, record: () => record };
}

describe("the session's methods", () => {
  it("answers ping with an empty result, changing nothing", async () => {
    const s = session();
    expect(await s.call("ping")).toEqual({});
    expect(s.updates).toEqual([]);
  });

  it("stores what initialize negotiated before answering with the server's capabilities", async () => {
    const s = session();
    const clientInfo = { name: "inspector", version: "0.9" };
    const result = await s.call("initialize", { protocolVersion: "2025-03-26", clientInfo, capabilities: { roots: {} } });
    expect(result).toMatchObject({ protocolVersion: "2025-03-26", serverInfo: { name: "resources", version: "1" }, capabilities: { logging: {}, resources: { subscribe: true } } });
    expect(s.record()).toMatchObject({ protocolVersion: "2025-03-26", clientInfo, clientCapabilities: { roots: {} } });
  });

  it("stores a valid log level", async () => {
    const s = session();
    expect(await s.call("logging/setLevel", { level: "warning" })).toEqual({});
    expect(s.updates).toEqual([{ logLevel: "warning" }]);
  });

  it.each([["an unknown level", "verbose"], ["a missing level", undefined]])("refuses %s with -32602 and leaves the level alone", async (_name, level) => {
    const s = session();
    const error = await mcpError(s.call("logging/setLevel", { level }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain("Invalid log level");
    expect(s.updates).toEqual([]);
  });

  it("subscribes a static or template URI once, and unsubscribes it", async () => {
    const s = session();
    expect(await s.call("resources/subscribe", { uri: "test://static-text" })).toEqual({});
    expect(await s.call("resources/subscribe", { uri: "test://template/9/data" })).toEqual({});
    expect(await s.call("resources/subscribe", { uri: "test://static-text" })).toEqual({});
    expect(s.record().subscriptions).toEqual(["test://static-text", "test://template/9/data"]);
    expect(await s.call("resources/unsubscribe", { uri: "test://static-text" })).toEqual({});
    expect(s.record().subscriptions).toEqual(["test://template/9/data"]);
    expect(s.updates).toHaveLength(3);
  });

  it("refuses to subscribe to a URI it cannot read, with -32002", async () => {
    const s = session();
    const error = await mcpError(s.call("resources/subscribe", { uri: "other://x" }));
    expect(error.toJsonRpc()).toEqual({ code: -32002, message: "Resource not found", data: { uri: "other://x" } });
    expect(s.updates).toEqual([]);
  });

  it("unsubscribes from an unknown URI without complaint, storing nothing", async () => {
    const s = session();
    expect(await s.call("resources/unsubscribe", { uri: "other://x" })).toEqual({});
    expect(s.updates).toEqual([]);
  });

  it.each(["resources/subscribe", "resources/unsubscribe"])("refuses %s without a uri string, -32602, nothing stored", async (method) => {
    const s = session();
    const error = await mcpError(s.call(method, { uri: ["test://static-text"] }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(s.updates).toEqual([]);
  });

  it("holds at most MAX_SUBSCRIPTIONS subscriptions", async () => {
    const many = new CompiledServer({ name: "m", version: "1", resourceTemplates: [resourceTemplate({ uriTemplate: "n://{id}", name: "n", read: async () => "" })] });
    const s = session(many);
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await s.call("resources/subscribe", { uri: `n://${i}` });
    const error = await mcpError(s.call("resources/subscribe", { uri: "n://one-more" }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(s.record().subscriptions).toHaveLength(MAX_SUBSCRIPTIONS);
  });

  it.each(["resources/subscribe", "resources/unsubscribe"])("answers %s with -32601 on a server without resources", async (method) => {
    const s = session(new CompiledServer({ name: "bare", version: "1" }));
    expect((await mcpError(s.call(method, { uri: "x://y" }))).code).toBe(ErrorCode.MethodNotFound);
  });
});
