import { describe, it, expect } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "../definition/ResourceDefinition.ts";
import { MAX_URI_CHARS } from "./resourceMethods.ts";
import { allPages, call, mcpError, stubContext } from "../testing/testKit.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const text: ResourceDefinition = {
  uri: "test://static-text",
  name: "static-text",
  title: "Static text",
  description: "Always the same text",
  mimeType: "text/plain",
  size: 5,
  annotations: { audience: ["user"], priority: 0.5 },
  read: async () => "hello",
};

const seenVars: unknown[] = [];
const server = new CompiledServer({
  name: "resources",
  version: "1",
  resources: [
    resource(text),
    resource({ uri: "test://static-binary", name: "static-binary", mimeType: "image/png", read: async () => new Uint8Array([0, 1, 2, 255]) }),
    resource({
      uri: "test://two-parts",
      name: "two-parts",
      read: async () => [
        { uri: "test://two-parts#1", mimeType: "text/plain", text: "one" },
        { uri: "test://two-parts#2", blob: "AA==", _meta: { part: 2 } },
      ],
    }),
    resource({ uri: "test://env", name: "env", read: async (ctx) => String(ctx.env.GREETING) }),
    resource({ uri: "test://broken", name: "broken", read: async () => 42 as never }),
  ],
  resourceTemplates: [
    resourceTemplate({
      uriTemplate: "test://template/{id}/data",
      name: "template-data",
      mimeType: "application/json",
      read: async ({ id }, uri) => {
        seenVars.push({ id, uri });
        return JSON.stringify({ id });
      },
      complete: { id: (value) => ["123", "124", "200"].filter((v) => v.startsWith(value)) },
    }),
    resourceTemplate(// Matches the static URIs too: they must still win. And it shadows the next template.
    resourceTemplate({ uriTemplate: "test://{name}", name: "by-name", read: async ({ name }) => `template ${name}` })),
    resourceTemplate({ uriTemplate: "test://{other}", name: "never-reached", read: async () => "second template" }),
  ],
});

describe("resources/list and resources/templates/list", () => {
  it("lists static resources with only the fields that are set", async () => {
    const { resources } = (await call(server, "resources/list")) as { resources: unknown[] };
    expect(resources).toHaveLength(5);
    expect(resources[0]).toEqual({
      uri: "test://static-text",
      name: "static-text",
      title: "Static text",
      description: "Always the same text",
      mimeType: "text/plain",
      size: 5,
      annotations: { audience: ["user"], priority: 0.5 },
    });
    expect(resources[1]).toEqual({ uri: "test://static-binary", name: "static-binary", mimeType: "image/png" });
    expect(JSON.stringify(resources)).not.toContain("read");
  });

  it("lists templates in definition order without their functions", async () => {
    expect(await call(server, "resources/templates/list")).toEqual({
      resourceTemplates: [
        { uriTemplate: "test://template/{id}/data", name: "template-data", mimeType: "application/json" },
        { uriTemplate: "test://{name}", name: "by-name" },
        { uriTemplate: "test://{other}", name: "never-reached" },
      ],
    });
  });

  it("pages 250 resources and 150 templates 100 at a time", async () => {
    const many = new CompiledServer({
      name: "many",
      version: "1",
      resources: Array.from({ length: 250 }, (_, i) => resource({ ...text, uri: `test://r/${i}` })),
      resourceTemplates: Array.from({ length: 150 }, (_, i) => resourceTemplate({ uriTemplate: `test://t/${i}/{id}`, name: `t${i}`, read: async () => "" })),
    });
    const resources = await allPages(many, "resources/list", "resources");
    expect(resources.pages).toBe(3);
    expect(resources.items.map((r) => r.uri)).toEqual(Array.from({ length: 250 }, (_, i) => `test://r/${i}`));
    const templates = await allPages(many, "resources/templates/list", "resourceTemplates");
    expect(templates.pages).toBe(2);
    expect(templates.items.map((t) => t.name)).toEqual(Array.from({ length: 150 }, (_, i) => `t${i}`));
  });

  it.each(["resources/list", "resources/templates/list"])("refuses a foreign cursor on %s with -32602", async (method) => {
    expect((await mcpError(call(server, method, { cursor: "bogus" }))).code).toBe(ErrorCode.InvalidParams);
  });
});

describe("resources/read", () => {
  it("answers text with the resource's URI and MIME type", async () => {
    expect(await call(server, "resources/read", { uri: "test://static-text" })).toEqual({
      contents: [{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }],
    });
  });

  it("answers bytes as a base64 blob", async () => {
    expect(await call(server, "resources/read", { uri: "test://static-binary" })).toEqual({
      contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: "AAEC/w==" }],
    });
  });

  it("passes a contents list through, and omits an unknown MIME type", async () => {
    const { contents } = (await call(server, "resources/read", { uri: "test://two-parts" })) as { contents: unknown[] };
    expect(contents).toEqual([
      { uri: "test://two-parts#1", mimeType: "text/plain", text: "one" },
      { uri: "test://two-parts#2", blob: "AA==", _meta: { part: 2 } },
    ]);
    expect(await call(server, "resources/read", { uri: "test://env" }, stubContext({ GREETING: "hi" }))).toEqual({
      contents: [{ uri: "test://env", text: "hi" }],
    });
  });

  it("reads through a template with the decoded variables and the URI as sent", async () => {
    seenVars.length = 0;
    expect(await call(server, "resources/read", { uri: "test://template/12%203/data" })).toEqual({
      contents: [{ uri: "test://template/12%203/data", mimeType: "application/json", text: '{"id":"12 3"}' }],
    });
    expect(seenVars).toEqual([{ id: "12 3", uri: "test://template/12%203/data" }]);
  });

  it("prefers an exact static URI, then the first matching template", async () => {
    expect(await call(server, "resources/read", { uri: "test://static-text" })).toMatchObject({ contents: [{ text: "hello" }] });
    expect(await call(server, "resources/read", { uri: "test://elsewhere" })).toEqual({ contents: [{ uri: "test://elsewhere", text: "template elsewhere" }] });
  });

  it("answers an unknown URI with -32002 Resource not found and the URI as data", async () => {
    const error = await mcpError(call(server, "resources/read", { uri: "test://template/1/2/data" }));
    expect(error.toJsonRpc()).toEqual({ code: -32002, message: "Resource not found", data: { uri: "test://template/1/2/data" } });
    expect(error.code).toBe(ErrorCode.ResourceNotFound);
    expect(error.status).toBe(404);
  });

  it.each([{}, { uri: 5 }])("refuses params %j with -32602", async (params) => {
    const error = await mcpError(call(server, "resources/read", params));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe('resources/read needs a "uri" string');
  });

  it("refuses a URI longer than it will match with -32602, before any template sees it", async () => {
    const uri = `test://${"x".repeat(100_000)}`;
    const error = await mcpError(call(server, "resources/read", { uri }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe(`resources/read: the "uri" is 100007 characters long; at most ${MAX_URI_CHARS} are accepted`);
    expect(server.resolvesResource(uri, stubContext())).toBe(false);
  });

  it("reads a URI of exactly the longest accepted length", async () => {
    const name = "x".repeat(MAX_URI_CHARS - "test://".length);
    expect(await call(server, "resources/read", { uri: `test://${name}` })).toEqual({ contents: [{ uri: `test://${name}`, text: `template ${name}` }] });
  });

  it("lets a malformed read return fail as a plain error (an internal error at the boundary)", async () => {
    const thrown = await call(server, "resources/read", { uri: "test://broken" }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(thrown).not.toBeInstanceOf(McpError);
    expect((thrown as Error).message).toContain("Resource test://broken read returned number");
  });
});

describe("which URIs can be subscribed to", () => {
  it("resolves a static URI and a template's, and no other", () => {
    const ctx = stubContext();
    expect(server.resolvesResource("test://static-text", ctx)).toBe(true);
    expect(server.resolvesResource("test://template/9/data", ctx)).toBe(true);
    expect(server.resolvesResource("other://x", ctx)).toBe(false);
  });
});

describe("resources capability", () => {
  it("advertises resources with subscribe when there are resources or only templates", () => {
    expect(server.capabilities().resources).toEqual({ subscribe: true, listChanged: false });
    const onlyTemplates = new CompiledServer({ name: "t", version: "1", resourceTemplates: [resourceTemplate({ uriTemplate: "x://{id}", name: "x", read: async () => "" })] });
    expect(onlyTemplates.capabilities().resources).toEqual({ subscribe: true, listChanged: false });
  });

  it.each(["resources/list", "resources/templates/list", "resources/read"])(
    "answers %s with -32601 on a server without resources",
    async (method) => {
      const bare = new CompiledServer({ name: "bare", version: "1" });
      expect(bare.capabilities()).not.toHaveProperty("resources");
      expect((await mcpError(call(bare, method, { uri: "x://y" }))).code).toBe(ErrorCode.MethodNotFound);
    },
  );
});

describe("resource definitions", () => {
  it("refuses, naming it, a resource or template not made with its helper (it would bring no code to serve it)", () => {
    expect(new CompiledServer({ name: "s", version: "1", resources: [{ uri: "x://y", name: "y", read: async () => "" } as never] }).problem?.message).toBe(
      'The server definition is invalid: resources: "x://y" was not made with resource(); wrap it, resource({ … }), so that its handler is typed and the server brings the code that serves it',
    );
    expect(new CompiledServer({ name: "s", version: "1", resourceTemplates: [{ uriTemplate: "x://{id}", name: "x", read: async () => "" } as never] }).problem?.message).toMatch(/resourceTemplates: "x:\/\/\{id\}" was not made with resourceTemplate\(\)/);
  });

  const template: ResourceTemplateDefinition = { uriTemplate: "x://{id}", name: "x", read: async () => "" };
  it.each<[string, Partial<ResourceDefinition>[], Partial<ResourceTemplateDefinition>[], string | RegExp]>([
    ["a URI defined twice", [text, text], [], "Resource test://static-text is defined twice"],
    ["a URI without a scheme", [{ ...text, uri: "/relative" }], [], /needs a URI with a scheme/],
    ["an empty name", [{ ...text, name: "" }], [], /needs a non-empty "name"/],
    ["a fractional size", [{ ...text, size: 1.5 }], [], /"size" must be a whole number/],
    ["a priority above 1", [{ ...text, annotations: { priority: 2 } }], [], /priority must be within 0..1/],
    ["a template defined twice", [], [template, template], /is defined twice/],
    ["a level-4 template", [], [{ ...template, uriTemplate: "x://{+path}" }], /only RFC 6570 level 1/],
    ["a completer for no variable", [], [{ ...template, complete: { idd: () => [] } }], /completer for "idd", which is not one of its variables \(id\)/],
  ])("refuses %s at startup", (_name, resources, resourceTemplates, message) => {
    const definition = { name: "s", version: "1", resources: (resources as ResourceDefinition[]).map(resource), resourceTemplates: (resourceTemplates as ResourceTemplateDefinition[]).map((t) => resourceTemplate(t)) };
    expect(() => new CompiledServer(definition).assertValid()).toThrow(message);
  });
});
