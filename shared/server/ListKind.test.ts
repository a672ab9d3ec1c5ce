import { describe, it, expect } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { defineServer, prompt, resourceTemplate, tool } from "./defineServer.ts";
import { call, mcpError, stubHooks } from "./testKit.ts";

const plain = tool({ name: "plain", description: "Always on", input: z.object({}), handler: async () => "plain" });
const admin = tool({ name: "admin", description: "Off until switched on", input: z.object({}), enabled: false, handler: async () => "admin" });
const legacy = tool({ name: "legacy", description: "On until switched off", input: z.object({}), enabled: true, handler: async () => "legacy" });

const server = defineServer({
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
  resources: [{ uri: "test://hidden", name: "hidden", enabled: false, read: async () => "hidden" }],
  resourceTemplates: [
    resourceTemplate({ uriTemplate: "test://t/{id}", name: "t", enabled: false, read: async ({ id }) => id, complete: { id: () => ["1"] } }),
  ],
});

const names = (result: Record<string, unknown>, key: string, field = "name") =>
  (result[key] as Record<string, unknown>[]).map((entry) => entry[field]);

describe("switchable definitions", () => {
  it("advertise listChanged only for features that have one", () => {
    const fixed = defineServer({ name: "fixed", version: "1", tools: [plain] });
    expect(fixed.capabilities().tools).toEqual({ listChanged: false });
    const caps = server.capabilities();
    expect(caps.tools).toEqual({ listChanged: true });
    expect(caps.prompts).toEqual({ listChanged: true });
    expect(caps.resources).toEqual({ subscribe: true, listChanged: true });
  });

  it("start in their declared state in every session", async () => {
    const { hooks } = stubHooks();
    expect(names(await call(server, "tools/list", {}, undefined, hooks), "tools")).toEqual(["plain", "legacy"]);
    expect(names(await call(server, "prompts/list", {}, undefined, hooks), "prompts")).toEqual(["greet"]);
    expect(names(await call(server, "resources/list", {}, undefined, hooks), "resources")).toEqual([]);
    expect(names(await call(server, "resources/templates/list", {}, undefined, hooks), "resourceTemplates")).toEqual([]);
  });

  it("refuse every use of a definition that is off, as if it did not exist", async () => {
    const { hooks } = stubHooks();
    expect((await mcpError(call(server, "tools/call", { name: "admin" }, undefined, hooks))).message).toBe("Unknown tool: admin");
    expect((await mcpError(call(server, "prompts/get", { name: "secret", arguments: { topic: "x" } }, undefined, hooks))).code).toBe(
      ErrorCode.InvalidParams,
    );
    expect((await mcpError(call(server, "resources/read", { uri: "test://hidden" }, undefined, hooks))).code).toBe(ErrorCode.ResourceNotFound);
    expect((await mcpError(call(server, "resources/read", { uri: "test://t/7" }, undefined, hooks))).code).toBe(ErrorCode.ResourceNotFound);
    expect((await mcpError(call(server, "resources/subscribe", { uri: "test://hidden" }, undefined, hooks))).code).toBe(ErrorCode.ResourceNotFound);
    const complete = (ref: Record<string, unknown>, name: string) =>
      call(server, "completion/complete", { ref, argument: { name, value: "" } }, undefined, hooks);
    expect((await mcpError(complete({ type: "ref/prompt", name: "secret" }, "topic"))).message).toBe("Unknown prompt: secret");
    expect((await mcpError(complete({ type: "ref/resource", uri: "test://t/{id}" }, "id"))).code).toBe(ErrorCode.InvalidParams);
  });

  it("switch per session, reporting whether anything changed", async () => {
    const { hooks } = stubHooks();
    const other = stubHooks().hooks;
    expect(await server.setEnabled("tool", "admin", true, hooks)).toBe(true);
    expect(await server.setEnabled("tool", "admin", true, hooks)).toBe(false);
    expect(await server.setEnabled("tool", "legacy", false, hooks)).toBe(true);
    expect(names(await call(server, "tools/list", {}, undefined, hooks), "tools")).toEqual(["plain", "admin"]);
    expect((await call(server, "tools/call", { name: "admin" }, undefined, hooks)).content).toEqual([{ type: "text", text: "admin" }]);
    expect(names(await call(server, "tools/list", {}, undefined, other), "tools")).toEqual(["plain", "legacy"]);
  });

  it("keep only the differences from the declared states", async () => {
    const { hooks } = stubHooks();
    await server.setEnabled("tool", "admin", true, hooks);
    await server.setEnabled("resource", "test://hidden", true, hooks);
    await server.setEnabled("resourceTemplate", "test://t/{id}", true, hooks);
    await server.setEnabled("prompt", "secret", true, hooks);
    expect(hooks.overrides()).toEqual({
      "tool:admin": true,
      "resource:test://hidden": true,
      "resourceTemplate:test://t/{id}": true,
      "prompt:secret": true,
    });
    expect((await call(server, "resources/read", { uri: "test://t/7" }, undefined, hooks)).contents).toEqual([{ uri: "test://t/7", text: "7" }]);
    expect(names(await call(server, "prompts/list", {}, undefined, hooks), "prompts")).toEqual(["greet", "secret"]);
    await server.setEnabled("tool", "admin", false, hooks);
    expect(hooks.overrides()).not.toHaveProperty("tool:admin");
  });

  it("refuse to switch a definition that did not declare enabled, or does not exist", async () => {
    const { hooks } = stubHooks();
    await expect(server.setEnabled("tool", "plain", false, hooks)).rejects.toThrow(/tool "plain" cannot be switched/);
    await expect(server.setEnabled("prompt", "missing", true, hooks)).rejects.toThrow(TypeError);
    expect(hooks.overrides()).toEqual({});
  });

  it("refuse a definition whose enabled is not a boolean", () => {
    const broken = { ...plain, name: "broken", enabled: "yes" as unknown as boolean };
    expect(() => defineServer({ name: "x", version: "1", tools: [broken] })).toThrow(/"enabled": "yes"/);
  });
});
