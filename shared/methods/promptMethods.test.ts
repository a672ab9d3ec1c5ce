import { describe, it, expect } from "vitest";
import { z } from "zod";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { prompt } from "../server/prompt.ts";
import type { PromptDefinition } from "../definition/PromptDefinition.ts";
import { allPages, call, mcpError, stubContext } from "../testing/testKit.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const review = prompt({
  name: "code_review",
  title: "Request Code Review",
  description: "Asks the model to review code",
  arguments: z.object({
    code: z.string().describe("The code to review"),
    language: z.string().optional().describe("Its language"),
    style: z.enum(["short", "long"]).default("short"),
    reviewer: z.string().meta({ title: "Reviewer", description: "Who reviews" }).optional(),
  }),
  get: async ({ code, language, style }) => [
    { role: "user", content: { type: "text", text: `Review this ${language ?? "unknown"} code (${style}):\n${code}` } },
  ],
  complete: { language: (value) => ["python", "rust"].filter((l) => l.startsWith(value)) },
});

const server = new CompiledServer({
  name: "prompts",
  version: "1",
  prompts: [
    prompt(review),
    prompt({
      name: "no_args",
      get: async (_args, ctx) => ({
        description: "Own description",
        messages: [
          { role: "assistant", content: { type: "resource", resource: { uri: "test://doc", mimeType: "text/plain", text: String(ctx.env.DOC) } } },
          { role: "user", content: { type: "text", text: "thanks", annotations: { audience: ["user"], priority: 1 } } },
        ],
      }),
    }),
    prompt({ name: "strict", arguments: z.strictObject({ a: z.string() }), get: async ({ a }) => [{ role: "user", content: { type: "text", text: a } }] }),
    prompt({ name: "broken", get: async () => [{ role: "system", content: { type: "text", text: "x" } }] as never }),
  ],
});

describe("prompts/list", () => {
  it("advertises arguments as PromptArgument[] with descriptions and required flags", async () => {
    const { prompts } = (await call(server, "prompts/list")) as { prompts: unknown[] };
    expect(prompts[0]).toEqual({
      name: "code_review",
      title: "Request Code Review",
      description: "Asks the model to review code",
      arguments: [
        { name: "code", description: "The code to review", required: true },
        { name: "language", description: "Its language", required: false },
        { name: "style", required: false },
        { name: "reviewer", title: "Reviewer", description: "Who reviews", required: false },
      ],
    });
    expect(prompts[1]).toEqual({ name: "no_args" });
    expect(prompts.map((p) => (p as { name: string }).name)).toEqual(["code_review", "no_args", "strict", "broken"]);
  });

  it("pages 150 prompts 100 at a time", async () => {
    const many = new CompiledServer({ name: "many", version: "1", prompts: Array.from({ length: 150 }, (_, i) => ({ ...review, name: `p${i}` })) });
    const { items, pages } = await allPages(many, "prompts/list", "prompts");
    expect(pages).toBe(2);
    expect(items.map((p) => p.name)).toEqual(Array.from({ length: 150 }, (_, i) => `p${i}`));
    expect((await mcpError(call(many, "prompts/list", { cursor: "bogus" }))).code).toBe(ErrorCode.InvalidParams);
  });
});

describe("prompts/get", () => {
  it("hands get the parsed arguments (defaults applied) and adds the prompt's description", async () => {
    expect(await call(server, "prompts/get", { name: "code_review", arguments: { code: "x = 1", language: "python" } })).toEqual({
      description: "Asks the model to review code",
      messages: [{ role: "user", content: { type: "text", text: "Review this python code (short):\nx = 1" } }],
    });
  });

  it("passes a full result through, embedded resources and annotations included", async () => {
    expect(await call(server, "prompts/get", { name: "no_args" }, stubContext({ DOC: "the doc" }))).toEqual({
      description: "Own description",
      messages: [
        { role: "assistant", content: { type: "resource", resource: { uri: "test://doc", mimeType: "text/plain", text: "the doc" } } },
        { role: "user", content: { type: "text", text: "thanks", annotations: { audience: ["user"], priority: 1 } } },
      ],
    });
  });

  it("answers an unknown prompt with -32602 Unknown prompt", async () => {
    const error = await mcpError(call(server, "prompts/get", { name: "x" }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe("Unknown prompt: x");
  });

  it("validates missing arguments as {}, naming the missing one", async () => {
    const error = await mcpError(call(server, "prompts/get", { name: "code_review" }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/^Invalid arguments for prompt code_review:\n/);
    expect(error.message).toContain("at code");
  });

  it.each([
    ["a number where a string belongs", "code_review", { code: 5 }, "expected string, received number"],
    ["a value outside an enum", "code_review", { code: "x", style: "medium" }, "at style"],
    ["an extra key for a strict object", "strict", { a: "x", b: "y" }, '"b"'],
  ])("refuses %s with -32602 and a readable message", async (_name, name, args, fragment) => {
    const error = await mcpError(call(server, "prompts/get", { name, arguments: args }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain(fragment);
  });

  it.each([
    ["a missing name", { arguments: {} }, 'prompts/get needs a "name" string'],
    ["arguments that are not an object", { name: "code_review", arguments: "code=1" }, 'prompts/get "arguments" must be an object of strings'],
  ])("refuses %s with -32602", async (_name, params, message) => {
    const error = await mcpError(call(server, "prompts/get", params));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe(message);
  });

  it("fails a malformed get return as a plain error (an internal error at the boundary)", async () => {
    const thrown = await call(server, "prompts/get", { name: "broken" }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).not.toBeInstanceOf(McpError);
    expect((thrown as Error).message).toContain('Prompt broken returned messages[0] with role "system"');
  });
});

describe("prompts capability and definitions", () => {
  it("advertises prompts and completions only when there are prompts", async () => {
    expect(server.capabilities()).toMatchObject({ prompts: { listChanged: false }, completions: {} });
    const bare = new CompiledServer({ name: "bare", version: "1" });
    expect(bare.capabilities()).toEqual({ logging: {} });
    for (const method of ["prompts/list", "prompts/get", "completion/complete"]) {
      expect((await mcpError(call(bare, method, { name: "x" }))).code).toBe(ErrorCode.MethodNotFound);
    }
  });

  it.each<[string, PromptDefinition<any>[], string | RegExp]>([
    ["a name defined twice", [review, review], "Prompt code_review is defined twice"],
    ["an empty name", [{ ...review, name: "" }], /needs a non-empty "name"/],
    ["a number argument", [{ ...review, arguments: z.object({ n: z.number() }) as never }], /argument "n" must take a string/],
    ["a nullable argument", [{ ...review, arguments: z.object({ n: z.string().nullable() }) as never }], /argument "n" must take a string/],
    ["a completer for no argument", [{ ...review, complete: { lang: () => [] } as never }], /completer for "lang", which is not one of its arguments/],
  ])("refuses %s at startup", (_name, prompts, message) => {
    expect(() => new CompiledServer({ name: "s", version: "1", prompts: prompts.map((p) => prompt(p)) }).assertValid()).toThrow(message);
  });
});
