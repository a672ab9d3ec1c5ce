import { describe, it, expect } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { tool } from "../server/defineServer.ts";
import { prompt } from "../server/prompt.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { switchOverrides } from "./ListKind.ts";
import { call, mcpError, problemOf, stubContext, stubSession } from "../testing/testKit.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

/** A request context in a fresh session of `server`, and that session. */
function inSession() {
  const session = stubSession(server);
  return { session, ctx: stubContext({}, { session }) };
}

const plain = tool({ name: "plain", description: "Always on", input: z.object({}), handler: async () => "plain" });
const admin = tool({ name: "admin", description: "Off until switched on", input: z.object({}), enabled: false, handler: async () => "admin" });
const legacy = tool({ name: "legacy", description: "On until switched off", input: z.object({}), enabled: true, handler: async () => "legacy" });

const server = new CompiledServer({
  name: "lists",
  version: "1",
  tools: [plain, admin, legacy],
  prompts: [
    prompt({ name: "greet", get: async () => [{ role: "user", content: { type: "text", text: "hi" } }] }),
    prompt({
      name: "secret",
      enabled: false,
      arguments: z.object({ topic: z.string() }),
      get: async () => [{ role: "user", content: { type: "text", text: "psst" } }],
      complete: { topic: () => ["alpha"] },
    }),
  ],
  resources: [resource({ uri: "test://hidden", name: "hidden", enabled: false, read: async () => "hidden" })],
  resourceTemplates: [
    resourceTemplate({ uriTemplate: "test://t/{id}", name: "t", enabled: false, read: async ({ id }) => id, complete: { id: () => ["1"] } }),
  ],
});

const names = (result: Record<string, unknown>, key: string, field = "name") =>
  (result[key] as Record<string, unknown>[]).map((entry) => entry[field]);

describe("switchable definitions", () => {
  it("advertise listChanged only for features that have one", () => {
    const fixed = new CompiledServer({ name: "fixed", version: "1", tools: [plain] });
    expect(fixed.capabilities().tools).toEqual({ listChanged: false });
    const caps = server.capabilities();
    expect(caps.tools).toEqual({ listChanged: true });
    expect(caps.prompts).toEqual({ listChanged: true });
    expect(caps.resources).toEqual({ subscribe: true, listChanged: true });
  });

  it("start in their declared state in every session, and stay so without one (2026-07-28)", async () => {
    for (const ctx of [inSession().ctx, stubContext({}, { session: undefined, storage: undefined })]) {
      expect(names(await call(server, "tools/list", {}, ctx), "tools")).toEqual(["plain", "legacy"]);
      expect(names(await call(server, "prompts/list", {}, ctx), "prompts")).toEqual(["greet"]);
      expect(names(await call(server, "resources/list", {}, ctx), "resources")).toEqual([]);
      expect(names(await call(server, "resources/templates/list", {}, ctx), "resourceTemplates")).toEqual([]);
    }
  });

  it("refuse every use of a definition that is off, as if it did not exist", async () => {
    const { ctx } = inSession();
    expect((await mcpError(call(server, "tools/call", { name: "admin" }, ctx))).message).toBe("Unknown tool: admin");
    expect((await mcpError(call(server, "prompts/get", { name: "secret", arguments: { topic: "x" } }, ctx))).code).toBe(ErrorCode.InvalidParams);
    expect((await mcpError(call(server, "resources/read", { uri: "test://hidden" }, ctx))).code).toBe(ErrorCode.ResourceNotFound);
    expect((await mcpError(call(server, "resources/read", { uri: "test://t/7" }, ctx))).code).toBe(ErrorCode.ResourceNotFound);
    expect(server.resolvesResource("test://hidden", ctx)).toBe(false);
    const complete = (ref: Record<string, unknown>, name: string) => call(server, "completion/complete", { ref, argument: { name, value: "" } }, ctx);
    expect((await mcpError(complete({ type: "ref/prompt", name: "secret" }, "topic"))).message).toBe("Unknown prompt: secret");
    expect((await mcpError(complete({ type: "ref/resource", uri: "test://t/{id}" }, "id"))).code).toBe(ErrorCode.InvalidParams);
  });

  it("switch per session, reporting whether anything changed", async () => {
    const switched = (overrides: Record<string, boolean>, kind: "tool", id: string, on: boolean) => switchOverrides(overrides, kind, id, on, server.declared(kind, id));
    expect(switched({}, "tool", "admin", true)).toEqual({ "tool:admin": true });
    expect(switched({ "tool:admin": true }, "tool", "admin", true)).toBeUndefined();
    expect(switched({ "tool:admin": true }, "tool", "legacy", false)).toEqual({ "tool:admin": true, "tool:legacy": false });
    const { session, ctx } = inSession();
    const other = inSession().ctx;
    await session.setEnabled("tool", "admin", true);
    await session.setEnabled("tool", "legacy", false);
    expect(names(await call(server, "tools/list", {}, ctx), "tools")).toEqual(["plain", "admin"]);
    expect((await call(server, "tools/call", { name: "admin" }, ctx)).content).toEqual([{ type: "text", text: "admin" }]);
    expect(names(await call(server, "tools/list", {}, other), "tools")).toEqual(["plain", "legacy"]);
  });

  it("keep only the differences from the declared states", async () => {
    const { session, ctx } = inSession();
    await session.setEnabled("tool", "admin", true);
    await session.setEnabled("resource", "test://hidden", true);
    await session.setEnabled("resourceTemplate", "test://t/{id}", true);
    await session.setEnabled("prompt", "secret", true);
    expect(session.overrides).toEqual({
      "tool:admin": true,
      "resource:test://hidden": true,
      "resourceTemplate:test://t/{id}": true,
      "prompt:secret": true,
    });
    expect((await call(server, "resources/read", { uri: "test://t/7" }, ctx)).contents).toEqual([{ uri: "test://t/7", text: "7" }]);
    expect(names(await call(server, "prompts/list", {}, ctx), "prompts")).toEqual(["greet", "secret"]);
    await session.setEnabled("tool", "admin", false);
    expect(session.overrides).not.toHaveProperty("tool:admin");
  });

  it("refuse to switch a definition that did not declare enabled, or does not exist", async () => {
    const { session } = inSession();
    await expect(session.setEnabled("tool", "plain", false)).rejects.toThrow(/tool "plain" cannot be switched/);
    await expect(session.setEnabled("prompt", "missing", true)).rejects.toThrow(TypeError);
    expect(session.overrides).toEqual({});
  });

  it("refuse a definition whose enabled is not a boolean", () => {
    const broken = { ...plain, name: "broken", enabled: "yes" as unknown as boolean };
    expect(problemOf(new CompiledServer({ name: "x", version: "1", tools: [broken] }))).toMatch(/"enabled": "yes"/);
  });
});
