/**
 * The types a handler gets for each `home` (checked by `tsc` in `npm test`): a definition with a
 * home of its own has `ctx.storage` in every era; a session one must check it, since 2026-07-28
 * has no session. The `@ts-expect-error` lines fail the type check if that ever changes.
 */
import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { homes, jsonSchema, prompt, resource, resourceTemplate, tool } from "durable-mcp";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const server = new CompiledServer({
  name: "types",
  version: "1",
  use: [homes()],
  toJsonSchema: z.toJSONSchema,
  tools: [
    tool({ name: "user", description: "", input: z.object({ x: z.string() }), home: "user", handler: async ({ x }, ctx) => (await ctx.storage.transaction(async (t) => t.get<string>(x))) ?? "" }),
    tool({
      name: "handle",
      description: "",
      input: z.object({ pad: z.optional(z.string()) }),
      home: { handle: "pad" },
      handler: async (_args, ctx) => {
        await ctx.storage.put("x", 1);
        return ctx.handle ?? "";
      },
    }),
    tool({ name: "raw", description: "", input: jsonSchema({ type: "object" }), home: "user", handler: async (_args, ctx) => String(await ctx.storage.get("x")) }),
    // @ts-expect-error a session tool's storage is absent on 2026-07-28: the handler must check it
    tool({ name: "session", description: "", input: z.object({}), handler: async (_args, ctx) => String(await ctx.storage.get("x")) }),
  ],
  prompts: [
    prompt({ name: "p", home: "user", get: async (_args, ctx) => [{ role: "user", content: { type: "text", text: String(await ctx.storage.get("x")) } }] }),
    // @ts-expect-error likewise for a session prompt
    prompt({ name: "q", get: async (_args, ctx) => [{ role: "user", content: { type: "text", text: String(await ctx.storage.get("x")) } }] }),
  ],
  resources: [resource({ uri: "a://b", name: "b", home: "user", read: async (ctx) => String(await ctx.storage.get("x")) })],
  resourceTemplates: [resourceTemplate({ uriTemplate: "pad://{pad}", name: "pad", home: { handle: "pad" }, read: async ({ pad }, _uri, ctx) => `${pad}:${String(await ctx.storage.get("x"))}` })],
});

describe("homes in the types", () => {
  it("compiles the definitions the types allow", () => {
    expect(server.problem).toBeUndefined();
    expect(server.homes).toEqual({ user: true, handle: true });
  });
});
