import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Principal } from "../auth/Principal.ts";
import { request } from "../jsonrpc/messages.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { tool } from "../server/defineServer.ts";
import { grants } from "../auth/grants.ts";
import { isOffered } from "../definition/ListKind.ts";
import { prompt } from "../server/prompt.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { MAX_URI_CHARS } from "./resourceMethods.ts";
import { ScopeIndex } from "./ScopeIndex.ts";
import type { ServerOptions } from "../definition/ServerOptions.ts";
import { call, mcpError, problemOf, stubContext, stubSession } from "../testing/testKit.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const text = (value: string) => [{ role: "user" as const, content: { type: "text" as const, text: value } }];

const options = {
  name: "scoped",
  version: "1",
  tools: [
    tool({ name: "open", description: "No scopes", input: z.object({}), handler: async () => "open" }),
    tool({ name: "deploy", description: "Needs two", input: z.object({}), scopes: ["deploy", "repo:write"], handler: async () => "deployed" }),
    tool({ name: "empty", description: "An empty list is no scope", input: z.object({}), scopes: [], handler: async () => "empty" }),
  ],
  prompts: [
    prompt({ name: "hello", get: async () => text("hello") }),
    prompt({ name: "audit", scopes: ["audit"], arguments: z.object({ area: z.string() }), get: async ({ area }) => text(area), complete: { area: () => ["billing"] } }),
  ],
  resources: [
    resource({ uri: "docs://readme", name: "readme", read: async () => "readme" }),
    resource({ uri: "docs://salaries", name: "salaries", scopes: ["hr"], read: async () => "salaries" }),
  ],
  resourceTemplates: [
    resourceTemplate({ uriTemplate: "docs://public/{page}", name: "public", read: async ({ page }) => page }),
    resourceTemplate({ uriTemplate: "docs://{page}", name: "page", scopes: ["docs:read"], read: async ({ page }) => page, complete: { page: () => ["intro"] } }),
    resourceTemplate({ uriTemplate: "mail://{box}/{id}", name: "mail", scopes: ["mail", "docs:read"], read: async ({ id }) => id }),
  ],
} satisfies ServerOptions;

const index = new ScopeIndex(options);

describe("ScopeIndex: tools and prompts", () => {
  it("names the scopes a tool declares, and none for a tool without, with [] or unknown", () => {
    expect(index.needed("tools/call", { name: "deploy", arguments: {} })).toEqual(["deploy", "repo:write"]);
    expect(index.needed("tools/call", { name: "open" })).toEqual([]);
    expect(index.needed("tools/call", { name: "empty" })).toEqual([]);
    expect(index.needed("tools/call", { name: "missing" })).toEqual([]);
  });

  it("names a prompt's scopes for prompts/get", () => {
    expect(index.needed("prompts/get", { name: "audit", arguments: { area: "x" } })).toEqual(["audit"]);
    expect(index.needed("prompts/get", { name: "hello" })).toEqual([]);
    expect(index.needed("prompts/get", { name: "missing" })).toEqual([]);
  });

  it("goes by method: a tool's name in prompts/get is not the tool", () => {
    expect(index.needed("prompts/get", { name: "deploy" })).toEqual([]);
    expect(index.needed("tools/list", { name: "deploy" })).toEqual([]);
    expect(index.needed("notifications/cancelled", { name: "deploy" })).toEqual([]);
  });
});

describe("ScopeIndex: resources", () => {
  it.each(["resources/read", "resources/subscribe", "resources/unsubscribe"])("%s: a static URI's own scopes, else the first matching template's", (method) => {
    expect(index.needed(method, { uri: "docs://salaries" })).toEqual(["hr"]);
    expect(index.needed(method, { uri: "docs://guide" })).toEqual(["docs:read"]);
    expect(index.needed(method, { uri: "mail://inbox/42" })).toEqual(["mail", "docs:read"]);
    expect(index.needed(method, { uri: "other://x" })).toEqual([]);
  });

  it("stops at the first matching template, as a read does, even when a later scoped one matches too", () => {
    const open = resourceTemplate({ uriTemplate: "kb://{id}", name: "open", read: async ({ id }) => id });
    const closed = resourceTemplate({ uriTemplate: "kb://{key}", name: "closed", scopes: ["kb"], read: async ({ key }) => key });
    expect(new ScopeIndex({ name: "s", version: "1", resourceTemplates: [open, closed] }).needed("resources/read", { uri: "kb://7" })).toEqual([]);
    expect(new ScopeIndex({ name: "s", version: "1", resourceTemplates: [closed, open] }).needed("resources/read", { uri: "kb://7" })).toEqual(["kb"]);
  });

  it("asks nothing for an unscoped static resource whose URI a scoped template also matches (the exact URI wins)", () => {
    expect(new ScopeIndex(options).needed("resources/read", { uri: "docs://readme" })).toEqual([]);
  });

  it("consults no template when none declares scopes", () => {
    const plain = new ScopeIndex({
      name: "s",
      version: "1",
      resources: [resource({ uri: "kb://secret", name: "secret", scopes: ["kb"], read: async () => "" })],
      resourceTemplates: [resourceTemplate({ uriTemplate: "kb://{id}", name: "open", read: async ({ id }) => id })],
    });
    expect(plain.needed("resources/read", { uri: "kb://secret" })).toEqual(["kb"]);
    expect(plain.needed("resources/read", { uri: "kb://other" })).toEqual([]);
  });

  it("matches no template against a URI longer than a read accepts (it is refused with -32602 there)", () => {
    const long = `docs://${"a".repeat(MAX_URI_CHARS)}`;
    expect(index.needed("resources/read", { uri: long })).toEqual([]);
    expect(index.needed("resources/read", { uri: long.slice(0, MAX_URI_CHARS) })).toEqual(["docs:read"]);
  });

  it("subscriptions/listen: the union of the scopes of every resource it watches, each once", () => {
    const listen = (resourceSubscriptions: unknown) => index.needed("subscriptions/listen", { notifications: { toolsListChanged: true, resourceSubscriptions } });
    expect(listen(["docs://salaries", "docs://guide", "mail://a/1", "docs://readme", "docs://intro"])).toEqual(["hr", "docs:read", "mail"]);
    expect(listen(["docs://readme", "other://x"])).toEqual([]);
    expect(listen([42, null, "docs://salaries"])).toEqual(["hr"]);
    expect(listen([])).toEqual([]);
    expect(listen("docs://salaries")).toEqual([]);
    expect(index.needed("subscriptions/listen", { notifications: { toolsListChanged: true } })).toEqual([]);
    expect(index.needed("subscriptions/listen", { notifications: ["docs://salaries"] })).toEqual([]);
    expect(index.needed("subscriptions/listen", {})).toEqual([]);
  });
});

describe("ScopeIndex: completion/complete", () => {
  const complete = (ref: unknown) => index.needed("completion/complete", { ref, argument: { name: "x", value: "" } });

  it("names the scopes of the prompt or template whose argument is completed", () => {
    expect(complete({ type: "ref/prompt", name: "audit" })).toEqual(["audit"]);
    expect(complete({ type: "ref/prompt", name: "hello" })).toEqual([]);
    expect(complete({ type: "ref/resource", uri: "docs://{page}" })).toEqual(["docs:read"]);
    expect(complete({ type: "ref/resource", uri: "docs://public/{page}" })).toEqual([]);
  });

  it("goes by the template itself, not by a URI it would match", () => {
    expect(complete({ type: "ref/resource", uri: "docs://guide" })).toEqual([]);
  });

  it("asks nothing for an unknown or malformed ref", () => {
    expect(complete({ type: "ref/prompt", name: "missing" })).toEqual([]);
    expect(complete({ type: "ref/tool", name: "deploy" })).toEqual([]);
    expect(complete({ type: "ref/prompt", name: 7 })).toEqual([]);
    expect(complete({ type: "ref/resource" })).toEqual([]);
    expect(complete("ref/prompt")).toEqual([]);
    expect(complete(undefined)).toEqual([]);
  });
});

describe("ScopeIndex: malformed params", () => {
  it.each([undefined, null, "deploy", 42, ["deploy"]].map((params) => ({ params })))("asks nothing for params $params", ({ params }) => {
    expect(index.needed("tools/call", params)).toEqual([]);
  });

  it("asks nothing when the name or URI is not a string", () => {
    expect(index.needed("tools/call", { name: ["deploy"] })).toEqual([]);
    expect(index.needed("prompts/get", { name: { toString: () => "audit" } })).toEqual([]);
    expect(index.needed("resources/read", { uri: ["docs://salaries"] })).toEqual([]);
  });
});

describe("ScopeIndex: invalid scopes", () => {
  const echo = (scopes: unknown) => tool({ name: "echo", description: "", input: z.object({}), scopes: scopes as string[], handler: async () => "" });

  // Wrapped in objects: it.each would spread a bare array into arguments.
  it.each([["a b"], ['a"b'], ["a\\b"], [""], ["ok", 7], "admin", { 0: "admin" }, null].map((scopes) => ({ scopes })))("refuses scopes $scopes with a TypeError naming the tool", ({ scopes }) => {
    expect(() => new ScopeIndex({ name: "s", version: "1", tools: [echo(scopes)] })).toThrow(TypeError);
    expect(() => new ScopeIndex({ name: "s", version: "1", tools: [echo(scopes)] })).toThrow(/^Tool "echo" has "scopes": .*it must be a list of OAuth scope names/);
  });

  it("names which kind of definition is wrong", () => {
    const read = async () => "";
    expect(() => new ScopeIndex({ name: "s", version: "1", prompts: [prompt({ name: "p", scopes: ["a b"], get: async () => [] })] })).toThrow(/^Prompt "p" has "scopes"/);
    expect(() => new ScopeIndex({ name: "s", version: "1", resources: [resource({ uri: "x://r", name: "r", scopes: [""], read })] })).toThrow(/^Resource "x:\/\/r" has "scopes"/);
    expect(() => new ScopeIndex({ name: "s", version: "1", resourceTemplates: [resourceTemplate({ uriTemplate: "x://{id}", name: "t", scopes: ['"'], read })] })).toThrow(
      /^Resource template "x:\/\/\{id\}" has "scopes"/,
    );
  });

  it("accepts every printable ASCII scope token (RFC 6749 §3.3)", () => {
    const token = "!#$%&'()*+,-./0123456789:;<=>?@AZ[]^_`az{|}~";
    expect(new ScopeIndex({ name: "s", version: "1", tools: [echo([token])] }).needed("tools/call", { name: "echo" })).toEqual([token]);
  });

  it("shows through defineServer as the definition's problem, not a throw", () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [echo(["read write"])] });
    expect(problemOf(server)).toBe('The server definition is invalid: Tool "echo" has "scopes": ["read write"]; it must be a list of OAuth scope names (printable ASCII, no spaces or quotes)');
    expect(server.problem).toBeInstanceOf(TypeError);
    expect(server.scopesNeeded([request(1, "tools/call", { name: "echo" })])).toEqual([]);
  });

  it("is what CompiledServer.scopesNeeded answers for a valid definition", () => {
    const server = new CompiledServer(options);
    expect(server.problem).toBeUndefined();
    expect(server.scopesNeeded([request(1, "tools/call", { name: "deploy" })])).toEqual(["deploy", "repo:write"]);
    expect(server.scopesNeeded([request(1, "resources/read", { uri: "docs://guide" })])).toEqual(["docs:read"]);
  });
});

describe("ListKind: grants and isOffered", () => {
  it("grants: no scopes needed is always granted; otherwise every one must be in the token", () => {
    expect(grants(undefined, undefined)).toBe(true);
    expect(grants(undefined, [])).toBe(true);
    expect(grants(undefined, ["a"])).toBe(false);
    expect(grants({ scopes: [] }, ["a"])).toBe(false);
    expect(grants({ scopes: ["a", "b"] }, ["a"])).toBe(true);
    expect(grants({ scopes: ["b", "a"] }, ["a", "b"])).toBe(true);
    expect(grants({ scopes: ["a"] }, ["a", "b"])).toBe(false);
    // Scopes are compared whole: a prefix is not the scope.
    expect(grants({ scopes: ["repo"] }, ["repo:write"])).toBe(false);
  });

  it("isOffered: a scoped definition needs a token with its scopes, and must be on besides", () => {
    const on = { isEnabled: () => true };
    const off = { isEnabled: () => false };
    const admin = { scopes: ["admin"] };
    expect(isOffered("tool", "t", admin, {})).toBe(false);
    expect(isOffered("tool", "t", admin, { session: on })).toBe(false);
    expect(isOffered("tool", "t", admin, { auth: { scopes: ["other"] } })).toBe(false);
    expect(isOffered("tool", "t", admin, { auth: { scopes: ["admin"] } })).toBe(true);
    expect(isOffered("tool", "t", { ...admin, enabled: true }, { auth: { scopes: ["admin"] }, session: off })).toBe(false);
    expect(isOffered("tool", "t", { ...admin, enabled: false }, { auth: { scopes: ["admin"] } })).toBe(false);
    expect(isOffered("tool", "t", { ...admin, enabled: false }, { auth: { scopes: ["admin"] }, session: on })).toBe(true);
    expect(isOffered("tool", "t", {}, {})).toBe(true);
    expect(isOffered("tool", "t", { scopes: [] }, {})).toBe(true);
  });
});

describe("scoped definitions in a server's lists", () => {
  const server = new CompiledServer(options);
  const principal = (...scopes: string[]): Principal => ({ issuer: "https://auth.example.com", subject: "alice", scopes, claims: {} });
  const as = (auth: Principal | undefined) => stubContext({}, { auth, session: stubSession(server) });
  const names = async (method: string, key: string, auth: Principal | undefined, field = "name") =>
    ((await call(server, method, {}, as(auth)))[key] as Record<string, unknown>[]).map((entry) => entry[field]);

  it("lists a scoped tool only to a token that grants all its scopes", async () => {
    expect(await names("tools/list", "tools", undefined)).toEqual(["open", "empty"]);
    expect(await names("tools/list", "tools", principal("deploy"))).toEqual(["open", "empty"]);
    expect(await names("tools/list", "tools", principal("repo:write", "deploy"))).toEqual(["open", "deploy", "empty"]);
  });

  it("answers a call to a scoped tool without its scopes as if it did not exist", async () => {
    for (const auth of [undefined, principal("deploy")]) {
      const error = await mcpError(call(server, "tools/call", { name: "deploy", arguments: {} }, as(auth)));
      expect([error.code, error.message]).toEqual([ErrorCode.InvalidParams, "Unknown tool: deploy"]);
    }
    const result = await call(server, "tools/call", { name: "deploy", arguments: {} }, as(principal("deploy", "repo:write")));
    expect(result.content).toEqual([{ type: "text", text: "deployed" }]);
  });

  it("hides scoped prompts, resources and templates the same way", async () => {
    expect(await names("prompts/list", "prompts", principal())).toEqual(["hello"]);
    expect(await names("prompts/list", "prompts", principal("audit"))).toEqual(["hello", "audit"]);
    expect(await names("resources/list", "resources", principal(), "uri")).toEqual(["docs://readme"]);
    expect(await names("resources/list", "resources", principal("hr"), "uri")).toEqual(["docs://readme", "docs://salaries"]);
    expect(await names("resources/templates/list", "resourceTemplates", principal("mail"), "uriTemplate")).toEqual(["docs://public/{page}"]);
    expect(await names("resources/templates/list", "resourceTemplates", principal("mail", "docs:read"), "uriTemplate")).toEqual(["docs://public/{page}", "docs://{page}", "mail://{box}/{id}"]);
    expect((await mcpError(call(server, "prompts/get", { name: "audit", arguments: { area: "x" } }, as(principal())))).message).toBe("Unknown prompt: audit");
    expect((await mcpError(call(server, "resources/read", { uri: "docs://guide" }, as(principal())))).code).toBe(ErrorCode.ResourceNotFound);
    expect((await call(server, "resources/read", { uri: "docs://guide" }, as(principal("docs:read")))).contents).toEqual([{ uri: "docs://guide", text: "guide" }]);
  });
});
