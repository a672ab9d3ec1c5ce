import { z } from "zod";
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { McpError } from "../errors/McpError.ts";
import { Logger } from "../log/Logger.ts";
import { prompt } from "../server/prompt.ts";
import { resourceTemplate } from "../server/resource.ts";
import { tool } from "../server/defineServer.ts";
import { homes as homesCapability } from "../../capabilities/homes/homes.ts";
import { problemOf, stubContext } from "../testing/testKit.ts";
import { LocalHomes } from "../../capabilities/homes/LocalHomes.ts";
import { runInHome } from "./runInHome.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const server = new CompiledServer({ use: [homesCapability()],
  name: "homes",
  version: "1",
  tools: [
    tool({
      name: "notes",
      description: "",
      input: z.object({ add: z.string().optional() }),
      home: "user",
      handler: async ({ add }, ctx) => {
        const notes = await ctx.storage.transaction(async (txn) => {
          const list = (await txn.get<string[]>("notes")) ?? [];
          if (add) await txn.put("notes", [...list, add]);
          return add ? [...list, add] : list;
        });
        return notes.join(",") || "(none)";
      },
    }),
    tool({
      name: "pad",
      description: "",
      input: z.object({ pad: z.string().optional(), add: z.string().optional() }),
      home: { handle: "pad" },
      handler: async ({ add }, ctx) => {
        if (add) await ctx.storage.put("text", add);
        return JSON.stringify({ pad: ctx.handle, text: (await ctx.storage.get<string>("text")) ?? null });
      },
    }),
    tool({ name: "plain", description: "", input: z.object({}), handler: async (_args, ctx) => String(ctx.storage !== undefined) }),
  ],
  prompts: [
    prompt({
      name: "recall",
      arguments: z.object({ topic: z.string() }),
      home: "user",
      get: async ({ topic }, ctx) => [{ role: "user", content: { type: "text", text: `${topic}: ${((await ctx.storage.get<string[]>("notes")) ?? []).join(",")}` } }],
      complete: { topic: async (value, ctx) => ((await ctx.storage?.get<string[]>("notes")) ?? []).filter((n) => n.startsWith(value)) },
    }),
  ],
  resourceTemplates: [
    resourceTemplate({ uriTemplate: "pad://{pad}", name: "pad", home: { handle: "pad" }, read: async (_vars, _uri, ctx) => (await ctx.storage.get<string>("text")) ?? "" }),
  ],
});

function homes() {
  return new LocalHomes({ server, config: DEFAULT_CONFIG, logger: new Logger("error") });
}

/** Runs one request the way an era does: the server's method, where its definition lives. */
function request(where: LocalHomes | undefined, owner: string | undefined, method: string, params: Record<string, unknown>, definition: CompiledServer = server) {
  return runInHome(definition, method, params, stubContext(), definition.method(method)!, { homes: where, owner });
}
const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;
const callTool = (where: LocalHomes | undefined, owner: string | undefined, name: string, args: Record<string, unknown>) => request(where, owner, "tools/call", { name, arguments: args });

describe("runInHome", () => {
  it("keeps a user tool's state per principal: the same storage for the same owner, another for another", async () => {
    const where = homes();
    await callTool(where, "alice", "notes", { add: "a1" });
    await callTool(where, "bob", "notes", { add: "b1" });
    expect(text(await callTool(where, "alice", "notes", { add: "a2" }))).toBe("a1,a2");
    expect(text(await callTool(where, "bob", "notes", {}))).toBe("b1");
    expect(where.size).toBe(2);
  });

  it("runs the prompt and the completer of a user home there too", async () => {
    const where = homes();
    await callTool(where, "alice", "notes", { add: "apples" });
    const got = await request(where, "alice", "prompts/get", { name: "recall", arguments: { topic: "fruit" } });
    expect(got.messages).toEqual([{ role: "user", content: { type: "text", text: "fruit: apples" } }]);
    const completed = await request(where, "alice", "completion/complete", { ref: { type: "ref/prompt", name: "recall" }, argument: { name: "topic", value: "ap" } });
    expect(completed.completion).toMatchObject({ values: ["apples"] });
  });

  it("opens a handle for a call without one, and finds it again for its owner only", async () => {
    const where = homes();
    const opened = JSON.parse(text(await callTool(where, "alice", "pad", { add: "secret" })));
    expect(opened.pad).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.parse(text(await callTool(where, "alice", "pad", { pad: opened.pad })))).toEqual({ pad: opened.pad, text: "secret" });
    const foreign = await callTool(where, "bob", "pad", { pad: opened.pad });
    expect(foreign.isError).toBe(true);
    expect(text(foreign)).toMatch(/^Unknown handle/);
    expect(await request(where, "alice", "resources/read", { uri: `pad://${opened.pad}` })).toEqual({ contents: [{ uri: `pad://${opened.pad}`, text: "secret" }] });
    const read = await request(where, "bob", "resources/read", { uri: `pad://${opened.pad}` }).catch((e: unknown) => e);
    expect(read).toBeInstanceOf(McpError);
    expect((read as McpError).code).toBe(-32602);
  });

  it("refuses a handle that cannot be one without making a home", async () => {
    const where = homes();
    for (const pad of ["../../etc", "ABC", 42]) {
      const refused = await callTool(where, undefined, "pad", { pad });
      expect(refused.isError).toBe(true);
    }
    expect(where.size).toBe(0);
  });

  it("runs a definition without a home of its own where it is, with the request's storage", async () => {
    expect(text(await callTool(homes(), "alice", "plain", {}))).toBe("true");
  });

  it("refuses, with a 500 that says why, a user tool with no signed-in user and a home tool with no host", async () => {
    const noUser = (await callTool(homes(), undefined, "notes", {}).catch((e: unknown) => e)) as McpError;
    expect(noUser.status).toBe(500);
    expect(noUser.message).toMatch(/has no user: configure `authorization`/);
    const noHost = (await callTool(undefined, "alice", "pad", {}).catch((e: unknown) => e)) as McpError;
    expect(noHost.message).toMatch(/this deployment hosts none \(on Workers: bind MCP_HOME\)/);
  });

  it("erases a user's home on request", async () => {
    const where = homes();
    await callTool(where, "alice", "notes", { add: "gone" });
    await where.erase("alice");
    expect(where.size).toBe(0);
    expect(text(await callTool(where, "alice", "notes", {}))).toBe("(none)");
  });
});

describe("declaring a home", () => {
  it("says what is wrong with a home that cannot work", () => {
    const input = z.object({ text: z.string() });
    expect(problemOf(new CompiledServer({ use: [homesCapability()], name: "x", version: "1", tools: [tool({ name: "t", description: "", input, home: { handle: "pad" }, handler: async () => "" })] }))).toMatch(
      /Tool t keeps its state under a handle in its "pad" argument .* but its input has no "pad" property/,
    );
    expect(problemOf(new CompiledServer({ name: "x", version: "1", tools: [tool({ name: "t", description: "", input, home: "team" as never, handler: async () => "" })] }))).toMatch(
      /Tool t has "home": "team"; it must be "session", "user" or \{ handle: "<argument name>" \}/,
    );
    expect(problemOf(new CompiledServer({ use: [homesCapability()], name: "x", version: "1", resourceTemplates: [resourceTemplate({ uriTemplate: "n://{id}", name: "n", home: { handle: "pad" }, read: async () => "" })] }))).toMatch(
      /has no such variable \(id\)/,
    );
  });

  it("tells which homes a definition uses", () => {
    expect(server.homes).toEqual({ user: true, handle: true });
    expect(new CompiledServer({ name: "x", version: "1" }).homes).toEqual({ user: false, handle: false });
  });
});
