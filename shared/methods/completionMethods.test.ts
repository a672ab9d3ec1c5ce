import { describe, it, expect } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { MAX_COMPLETION_VALUES } from "./completionMethods.ts";
import { prompt } from "../server/prompt.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { call, mcpError, stubContext } from "../testing/testKit.ts";
import type { CompletionContext } from "../definition/RequestContext.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const seen: { value: string; arguments: unknown; env: unknown }[] = [];
const MANY = Array.from({ length: 250 }, (_, i) => `v${String(i).padStart(3, "0")}`);

const server = new CompiledServer({
  name: "completion",
  version: "1",
  prompts: [
    prompt({
      name: "code_review",
      arguments: z.object({ language: z.string(), framework: z.string().optional(), code: z.string().optional() }),
      get: async () => [],
      complete: {
        language: (value) => ["python", "pytorch", "rust"].filter((l) => l.startsWith(value)),
        framework: async (value, context: CompletionContext) => {
          seen.push({ value, arguments: context.arguments, env: context.env.MARK });
          return context.arguments.language === "python" ? ["flask", "fastapi"].filter((f) => f.startsWith(value)) : [];
        },
      },
    }),
    prompt({ name: "plain", arguments: z.object({ a: z.string() }), get: async () => [] }),
    prompt({ name: "wrong", arguments: z.object({ a: z.string() }), get: async () => [], complete: { a: () => "nope" as never } }),
  ],
  resources: [resource({ uri: "test://static", name: "static", read: async () => "" })],
  resourceTemplates: [
    resourceTemplate({ uriTemplate: "test://items/{id}", name: "items", read: async () => "", complete: { id: () => MANY } }),
    resourceTemplate({ uriTemplate: "test://exact/{id}", name: "exact", read: async () => "", complete: { id: () => MANY.slice(0, 100) } }),
  ],
});

function complete(params: Record<string, unknown>, ctx = stubContext()) {
  return call(server, "completion/complete", params, ctx);
}

describe("completion/complete", () => {
  it("completes a prompt argument", async () => {
    expect(await complete({ ref: { type: "ref/prompt", name: "code_review" }, argument: { name: "language", value: "py" } })).toEqual({
      completion: { values: ["python", "pytorch"], total: 2, hasMore: false },
    });
  });

  it("hands the completer context.arguments and the request context", async () => {
    seen.length = 0;
    const params = {
      ref: { type: "ref/prompt", name: "code_review" },
      argument: { name: "framework", value: "fla" },
      context: { arguments: { language: "python" } },
    };
    expect(await complete(params, stubContext({ MARK: "m" }))).toEqual({ completion: { values: ["flask"], total: 1, hasMore: false } });
    await complete({ ref: { type: "ref/prompt", name: "code_review" }, argument: { name: "framework", value: "" } });
    expect(seen).toEqual([
      { value: "fla", arguments: { language: "python" }, env: "m" },
      { value: "", arguments: {}, env: undefined },
    ]);
  });

  it(`caps values at ${MAX_COMPLETION_VALUES}, with the full total and hasMore`, async () => {
    const result = (await complete({ ref: { type: "ref/resource", uri: "test://items/{id}" }, argument: { name: "id", value: "" } })) as {
      completion: { values: string[]; total: number; hasMore: boolean };
    };
    expect(result.completion.values).toEqual(MANY.slice(0, 100));
    expect(result.completion.total).toBe(250);
    expect(result.completion.hasMore).toBe(true);
  });

  it("says hasMore false when exactly 100 values fit", async () => {
    const result = (await complete({ ref: { type: "ref/resource", uri: "test://exact/{id}" }, argument: { name: "id", value: "" } })) as {
      completion: { values: string[]; total: number; hasMore: boolean };
    };
    expect(result.completion).toEqual({ values: MANY.slice(0, 100), total: 100, hasMore: false });
  });

  it.each([
    ["a prompt without completers", { type: "ref/prompt", name: "plain" }, "a"],
    ["an argument without a completer", { type: "ref/prompt", name: "code_review" }, "code"],
    ["an argument the prompt does not have", { type: "ref/prompt", name: "code_review" }, "nope"],
    ["an inherited property name", { type: "ref/prompt", name: "code_review" }, "toString"],
    ["a template variable the template does not have", { type: "ref/resource", uri: "test://items/{id}" }, "other"],
  ])("answers %s with no values", async (_name, ref, argument) => {
    expect(await complete({ ref, argument: { name: argument, value: "" } })).toEqual({ completion: { values: [], total: 0, hasMore: false } });
  });

  it.each([
    ["an unknown prompt", { type: "ref/prompt", name: "nope" }, "Unknown prompt: nope"],
    ["an unknown template", { type: "ref/resource", uri: "test://nope/{id}" }, "Unknown resource template: test://nope/{id}"],
    ["a concrete URI rather than the template", { type: "ref/resource", uri: "test://items/1" }, "Unknown resource template: test://items/1"],
    ["a static resource, which has nothing to complete", { type: "ref/resource", uri: "test://static" }, "Unknown resource template: test://static"],
  ])("refuses %s with -32602", async (_name, ref, message) => {
    const error = await mcpError(complete({ ref, argument: { name: "id", value: "" } }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe(message);
  });

  it.each([
    ["no ref", { argument: { name: "a", value: "" } }],
    ["an unknown ref type", { ref: { type: "ref/tool", name: "x" }, argument: { name: "a", value: "" } }],
    ["a prompt ref without a name", { ref: { type: "ref/prompt" }, argument: { name: "a", value: "" } }],
    ["no argument", { ref: { type: "ref/prompt", name: "plain" } }],
    ["a numeric value", { ref: { type: "ref/prompt", name: "plain" }, argument: { name: "a", value: 1 } }],
    ["non-string context arguments", { ref: { type: "ref/prompt", name: "plain" }, argument: { name: "a", value: "" }, context: { arguments: { b: 2 } } }],
  ])("refuses params with %s with -32602", async (_name, params) => {
    const error = await mcpError(complete(params));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/^Invalid completion\/complete params:\n/);
  });

  it("fails a completer that returns something other than strings as a plain error", async () => {
    const thrown = await complete({ ref: { type: "ref/prompt", name: "wrong" }, argument: { name: "a", value: "" } }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toBe(`The completer for prompt wrong's "a" must return an array of strings`);
  });

  it("is advertised for a server with only resource templates, and not for one with only static resources", () => {
    const templates = new CompiledServer({ name: "t", version: "1", resourceTemplates: [resourceTemplate({ uriTemplate: "x://{id}", name: "x", read: async () => "" })] });
    expect(templates.capabilities()).toEqual({ logging: {}, resources: { subscribe: true, listChanged: false }, completions: {} });
    const statics = new CompiledServer({ name: "s", version: "1", resources: [resource({ uri: "x://y", name: "y", read: async () => "" })] });
    expect(statics.capabilities()).toEqual({ logging: {}, resources: { subscribe: true, listChanged: false } });
  });
});
