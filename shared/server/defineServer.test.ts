import { describe, it, expect, expectTypeOf } from "vitest";
import { z } from "zod";
import { defineServer, tool } from "./defineServer.ts";
import { jsonSchema } from "../schema/jsonSchema.ts";
import { prompt } from "./prompt.ts";
import { resourceTemplate } from "./resource.ts";
import { call } from "../testing/testKit.ts";
import { testClient } from "../testing/testClient.ts";
import type { CompletionContext, RequestContext } from "../definition/RequestContext.ts";
import type { CallToolResult } from "../definition/types.ts";

// What the helpers are for is inference, which `tsc -p .` checks here, and marking a definition as made by one.
describe("definition helpers", () => {
  it("types a zod tool's arguments from its input and a jsonSchema() tool's as a record, or as it is told", () => {
    const zodTool = tool({ name: "a", description: "", input: z.object({ n: z.number() }), handler: async ({ n }) => String(n) });
    const rawTool = tool({
      name: "b",
      description: "",
      input: jsonSchema({ type: "object", properties: { n: { type: "number" } } }),
      handler: async (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return "";
      },
    });
    const toldTool = tool({
      name: "c",
      description: "",
      input: jsonSchema<{ n: number }>({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }),
      output: jsonSchema<{ doubled: number }>({ type: "object", properties: { doubled: { type: "number" } } }),
      handler: async ({ n }) => ({ doubled: 2 * n }),
    });
    expectTypeOf(zodTool.handler).parameter(0).toEqualTypeOf<{ n: number }>();
    expectTypeOf(rawTool.handler).parameter(1).toEqualTypeOf<RequestContext>();
    expectTypeOf(toldTool.handler).parameter(0).toEqualTypeOf<{ n: number }>();
    expectTypeOf(toldTool.handler).returns.resolves.toEqualTypeOf<{ doubled: number } | CallToolResult>();
    expect(tool(zodTool)).toEqual(zodTool);
  });

  it("are each required: a plain object is a definition problem that names its helper", () => {
    const handler = async () => "";
    const problemOf = (options: Parameters<typeof defineServer>[0]) => defineServer(options).problem?.message;
    expect(problemOf({ name: "s", version: "1", tools: [{ name: "echo", description: "", input: jsonSchema({ type: "object" }), handler } as never] })).toBe(
      'The server definition is invalid: tools: "echo" was not made with tool(); wrap it, tool({ … }), so that its handler is typed and the server brings the code that serves it',
    );
    expect(problemOf({ name: "s", version: "1", prompts: [{ name: "greet", get: async () => [] } as never] })).toMatch(/^The server definition is invalid: prompts: "greet" was not made with prompt\(\); wrap it, prompt\(\{ … \}\)/);
    expect(problemOf({ name: "s", version: "1", tools: [tool({ name: "echo", description: "", input: jsonSchema({ type: "object" }), handler })] })).toBeUndefined();
  });

  it("make a definition that only a runtime entry reads: one given anything else refuses it, naming itself", async () => {
    const server = defineServer({ name: "s", version: "1" });
    await expect(testClient({ name: "s", version: "1" } as never)).rejects.toThrow("testClient takes what defineServer() returns");
    const client = await testClient(server);
    expect(await client.listTools()).toEqual([]);
    await client.close();
  });

  it("types a template's variables and completers from its uriTemplate", () => {
    const t = resourceTemplate({
      uriTemplate: "repo://{owner}/{name}",
      name: "repo",
      read: async (vars) => {
        expectTypeOf(vars).toEqualTypeOf<Record<"owner" | "name", string>>();
        return `${vars.owner}/${vars.name}`;
      },
      complete: { owner: (_value, context) => [context.arguments.name ?? ""] },
    });
    // @ts-expect-error "repo" is not a variable of the template
    resourceTemplate({ ...t, complete: { repo: () => [] } });
    expect(t.uriTemplate).toBe("repo://{owner}/{name}");
  });

  it("types a prompt's arguments and completers from its zod object", async () => {
    const p = prompt({
      name: "p",
      arguments: z.object({ a: z.string(), b: z.string().optional() }),
      get: async (args) => {
        expectTypeOf(args).toEqualTypeOf<{ a: string; b?: string | undefined }>();
        return [{ role: "user", content: { type: "text", text: args.a } }];
      },
      complete: {
        b: (value, context) => {
          expectTypeOf(context).toEqualTypeOf<CompletionContext>();
          return [value];
        },
      },
    });
    // @ts-expect-error prompt arguments must take strings
    prompt({ name: "q", arguments: z.object({ n: z.number() }), get: async () => [] });
    const server = defineServer({ name: "s", version: "1", prompts: [prompt(p)] });
    expect(await call(server, "prompts/get", { name: "p", arguments: { a: "hi" } })).toEqual({ messages: [{ role: "user", content: { type: "text", text: "hi" } }] });
  });

  it("types a prompt without arguments as getting {}", () => {
    const p = prompt({ name: "p", get: async (args) => (expectTypeOf(args).toEqualTypeOf<Record<string, never>>(), []) });
    expect(p.arguments).toBeUndefined();
  });
});
