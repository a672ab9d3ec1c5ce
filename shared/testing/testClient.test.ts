import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../server/defineServer.ts";
import { homes as homesCapability } from "../../capabilities/homes/homes.ts";
import { prompt } from "../server/prompt.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { MAX_INPUT_ROUNDS, testClient, type TestClient, TestClientError, type TestClientOptions } from "./testClient.ts";
import { testHomes } from "./testHomes.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const server = new CompiledServer({
  name: "tested",
  version: "2.0.0",
  tools: [
    tool({
      name: "countWords",
      description: "Counts the words in a text",
      input: z.object({ text: z.string() }),
      output: z.object({ words: z.number() }),
      handler: async ({ text }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
    }),
    tool({
      name: "confirmDelete",
      description: "Deletes after the user confirms",
      input: z.object({ item: z.string() }),
      handler: async ({ item }, ctx) => {
        const answer = await ctx.elicit({ message: `Delete ${item}?`, requestedSchema: { type: "object", properties: { sure: { type: "boolean" } }, required: ["sure"] } });
        return answer.action === "accept" && answer.content?.sure === true ? `deleted ${item}` : `kept ${item}`;
      },
    }),
    tool({
      name: "summarize",
      description: "Asks the client's model",
      input: z.object({ text: z.string() }),
      handler: async ({ text }, ctx) => {
        const reply = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }], maxTokens: 50 });
        const roots = await ctx.listRoots();
        const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
        return `${content?.type === "text" ? content.text : "?"} (${reply.model}; roots: ${roots.roots.map((r) => r.uri).join(",")})`;
      },
    }),
    tool({
      name: "count",
      description: "Counts its calls in the session's storage",
      input: z.object({}),
      handler: async (_args, ctx) => {
        const seen = ((await ctx.storage?.get<number>("calls")) ?? 0) + 1;
        await ctx.storage?.put("calls", seen);
        return String(seen);
      },
    }),
    tool({
      name: "steps",
      description: "Reports progress",
      input: z.object({}),
      handler: async (_args, ctx) => {
        await ctx.progress(1, 2, "half");
        await ctx.progress(2, 2, "done");
        return "ok";
      },
    }),
    tool({
      name: "askForever",
      description: "Asks again on every round",
      input: z.object({}),
      handler: async (_args, ctx) => {
        const rounds = Number(((await ctx.elicit({ message: "again?", requestedSchema: { type: "object", properties: {} } }, { key: `ask-${Math.random()}` })) as { action: string }).action);
        return String(rounds);
      },
    }),
  ],
  prompts: [prompt({ name: "review", arguments: z.object({ code: z.string() }), get: async ({ code }) => [{ role: "user", content: { type: "text", text: `Review: ${code}` } }] })],
  resources: [resource({ uri: "docs://readme", name: "readme", read: async () => "read me" })],
  resourceTemplates: [resourceTemplate({ uriTemplate: "notes://{id}", name: "note", read: async ({ id }) => `note ${id}` })],
});

const SESSION_REVISION = "2025-11-25";

/** Runs `use` with a client of `definition`, and closes the client however `use` ends. */
async function withClient(definition: CompiledServer, options: TestClientOptions, use: (client: TestClient) => Promise<void>): Promise<void> {
  const client = await testClient(definition, options);
  try {
    await use(client);
  } finally {
    await client.close();
  }
}

describe("testClient", () => {
  it("speaks 2026-07-28 by default: discovers the server, lists and calls its tools", async () => {
    await withClient(server, {}, async (client) => {
      expect(client.protocolVersion).toBe("2026-07-28");
      expect(client.serverInfo).toMatchObject({ name: "tested", version: "2.0.0" });
      expect(client.capabilities).toHaveProperty("tools");
      expect((await client.listTools()).map((t) => t.name)).toEqual(["countWords", "confirmDelete", "summarize", "count", "steps", "askForever"]);
      const result = await client.callTool("countWords", { text: "one two  three" });
      expect(result.structuredContent).toEqual({ words: 3 });
      expect(result.resultType).toBe("complete");
    });
  });

  it("speaks a session revision when asked: initialize first, and the session's storage kept across calls", async () => {
    await withClient(server, { protocolVersion: SESSION_REVISION }, async (client) => {
      expect(client.protocolVersion).toBe(SESSION_REVISION);
      expect(client.serverInfo).toMatchObject({ name: "tested" });
      expect(client.capabilities).toHaveProperty("prompts");
      expect((await client.callTool("count")).content).toEqual([{ type: "text", text: "1" }]);
      expect((await client.callTool("count")).content).toEqual([{ type: "text", text: "2" }]);
    });
  });

  for (const protocolVersion of ["2026-07-28", SESSION_REVISION]) {
    it(`answers elicitation with the test's own answerer (${protocolVersion})`, async () => {
      const asked: string[] = [];
      const elicit: TestClientOptions["elicit"] = (params) => {
        asked.push(params.message);
        return { action: "accept", content: { sure: true } };
      };
      await withClient(server, { protocolVersion, elicit }, async (client) => {
        expect((await client.callTool("confirmDelete", { item: "draft" })).content).toEqual([{ type: "text", text: "deleted draft" }]);
        expect(asked).toEqual(["Delete draft?"]);
      });
    });

    it(`answers sampling and roots, both asked by one call (${protocolVersion})`, async () => {
      const sample: TestClientOptions["sample"] = (params) => ({ role: "assistant", content: { type: "text", text: `short of ${(params.messages[0]!.content as { text: string }).text.length}` }, model: "test-model" });
      await withClient(server, { protocolVersion, sample, roots: [{ uri: "file:///work" }] }, async (client) => {
        expect((await client.callTool("summarize", { text: "abc" })).content).toEqual([{ type: "text", text: "short of 14 (test-model; roots: file:///work)" }]);
      });
    });
  }

  it("declares no elicitation without an answerer, so the server's ask fails as it would with such a client", async () => {
    await withClient(server, {}, async (client) => {
      const result = await client.callTool("confirmDelete", { item: "draft" }).catch((error: unknown) => error);
      expect(result).toBeInstanceOf(TestClientError);
      expect((result as TestClientError).message).toMatch(/elicitation/);
    });
  });

  it("stops a request whose handler asks for input on every round, naming the bound", async () => {
    await withClient(server, { elicit: () => ({ action: "decline" }) }, async (client) => {
      await expect(client.callTool("askForever")).rejects.toThrow(`tools/call still asked for input after ${MAX_INPUT_ROUNDS} rounds of answers`);
    });
  });

  it("hands each call's progress to its own listener", async () => {
    await withClient(server, { protocolVersion: SESSION_REVISION }, async (client) => {
      const seen: unknown[] = [];
      await client.callTool("steps", {}, { onProgress: (p) => seen.push([p.progress, p.total, p.message]) });
      expect(seen).toEqual([
        [1, 2, "half"],
        [2, 2, "done"],
      ]);
      expect(client.notifications.filter((n) => n.method === "notifications/progress")).toHaveLength(2);
    });
  });

  it("rejects with the server's JSON-RPC error: code, message and data", async () => {
    await withClient(server, {}, async (client) => {
      const error = await client.callTool("noSuchTool").catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TestClientError);
      expect((error as TestClientError).code).toBe(-32602);
      expect((error as TestClientError).message).toMatch(/noSuchTool/);
      const invalid = await client.callTool("countWords", { text: 42 });
      expect(invalid.isError).toBe(true);
    });
  });

  it("gets prompts, lists and reads resources and templates", async () => {
    await withClient(server, {}, async (client) => {
      expect((await client.listPrompts()).map((p) => p.name)).toEqual(["review"]);
      expect((await client.getPrompt("review", { code: "x = 1" })).messages).toEqual([{ role: "user", content: { type: "text", text: "Review: x = 1" } }]);
      expect((await client.listResources()).map((r) => r.uri)).toEqual(["docs://readme"]);
      expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["notes://{id}"]);
      expect((await client.readResource("notes://7")).contents).toEqual([{ uri: "notes://7", text: "note 7" }]);
    });
  });

  it("follows every page of a listing", async () => {
    const many = new CompiledServer({
      name: "many",
      version: "1.0.0",
      tools: Array.from({ length: 250 }, (_, i) => tool({ name: `t${i}`, description: "one of many", input: z.object({}), handler: async () => "" })),
    });
    await withClient(many, {}, async (client) => {
      const tools = await client.listTools();
      expect(tools).toHaveLength(250);
      expect(tools.at(-1)?.name).toBe("t249");
    });
  });

  it("refuses a definition that cannot be served, with the sentence that says why", async () => {
    const broken = new CompiledServer({
      name: "broken",
      version: "1.0.0",
      tools: [1, 2].map(() => tool({ name: "twice", description: "defined twice", input: z.object({}), handler: async () => "" })),
    });
    await expect(testClient(broken)).rejects.toThrow(/twice/);
  });

  it("refuses requests once closed, and an unknown revision before connecting", async () => {
    const client = await testClient(server);
    await client.close();
    await expect(client.callTool("countWords", { text: "a" })).rejects.toThrow(/ended/);
    await expect(testClient(server, { protocolVersion: "1999-01-01" })).rejects.toThrow(/1999-01-01/);
  });

  describe("with a signed-in user", () => {
    const mine = new CompiledServer({ use: [homesCapability()],
      name: "mine",
      version: "1.0.0",
      tools: [
        tool({
          name: "remember",
          description: "Adds a note to the user's own list, and returns the list",
          input: z.object({ note: z.string() }),
          home: "user",
          handler: async ({ note }, ctx) => {
            const notes = [...((await ctx.storage?.get<string[]>("notes")) ?? []), note];
            await ctx.storage?.put("notes", notes);
            return `${ctx.auth?.subject}: ${notes.join(", ")}`;
          },
        }),
        tool({ name: "purge", description: "Needs the admin scope", input: z.object({}), scopes: ["admin"], handler: async () => "purged" }),
      ],
    });

    it("keeps each user's state in their own home, in both kinds of revision", async () => {
      for (const protocolVersion of ["2026-07-28", SESSION_REVISION]) {
        await withClient(mine, { protocolVersion, user: { subject: "alice" } }, async (alice) => {
          await alice.callTool("remember", { note: "milk" });
          expect((await alice.callTool("remember", { note: "eggs" })).content).toEqual([{ type: "text", text: "alice: milk, eggs" }]);
        });
        await withClient(mine, { protocolVersion, user: { subject: "bob" } }, async (bob) => {
          expect((await bob.callTool("remember", { note: "tea" })).content).toEqual([{ type: "text", text: "bob: tea" }]);
        });
      }
    });

    it("checks a definition's scopes against the user's, as a token's would be", async () => {
      for (const protocolVersion of ["2026-07-28", SESSION_REVISION]) {
        await withClient(mine, { protocolVersion, user: { subject: "carol", scopes: ["read"] } }, async (carol) => {
          const refused = await carol.callTool("purge").catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(TestClientError);
          expect((refused as TestClientError).message).toBe("The user lacks the scope admin this request needs");
        });
        await withClient(mine, { protocolVersion, user: { subject: "dave", scopes: ["admin"] } }, async (dave) => {
          expect((await dave.callTool("purge")).content).toEqual([{ type: "text", text: "purged" }]);
        });
      }
    });

    it("refuses a server with user homes without one, with the sentence that says to pass one", async () => {
      await expect(testClient(mine)).rejects.toThrow(/home: "user".*this test client has no signed-in user: pass one, testClient\(server, \{ user: \{ subject: "alice" \} \}\)/);
      await expect(testClient(mine)).rejects.not.toThrow(/authorization/);
    });
  });

  describe("with homes that outlive one client (testHomes)", () => {
    const notes = new CompiledServer({ use: [homesCapability()],
      name: "notes",
      version: "1.0.0",
      tools: [
        tool({
          name: "notebook",
          description: "Adds a note to a notebook (a new one without `notebook`), and lists its notes",
          input: z.object({ notebook: z.string().optional(), note: z.string().optional() }),
          home: { handle: "notebook" },
          handler: async ({ note }, ctx) => {
            const kept = [...((await ctx.storage?.get<string[]>("notes")) ?? []), ...(note ? [note] : [])];
            if (note) await ctx.storage?.put("notes", kept);
            return `${ctx.handle}: ${kept.join(", ")}`;
          },
        }),
      ],
    });
    const handleOf = (result: { content: unknown }) => JSON.stringify(result.content).match(/"text":"([^:]+):/)![1]!;

    it("finds a handle one client opened from a second client, as after a reconnect, in both kinds of revision", async () => {
      for (const protocolVersion of ["2026-07-28", SESSION_REVISION]) {
        const homes = testHomes();
        const first = await testClient(notes, { protocolVersion, homes });
        const handle = handleOf(await first.callTool("notebook", { note: "first" }));
        await first.close();
        const second = await testClient(notes, { protocolVersion, homes });
        expect((await second.callTool("notebook", { notebook: handle, note: "second" })).content).toEqual([{ type: "text", text: `${handle}: first, second` }]);
        await second.close();
        // The notebook's home, and its client's, which holds the handle's fair share.
        expect(homes.size).toBe(2);
      }
    });

    it("keeps nothing from one test's homes in another's, nor without them", async () => {
      const homes = testHomes();
      const first = await testClient(notes, { homes });
      const handle = handleOf(await first.callTool("notebook", { note: "kept" }));
      await first.close();
      const elsewhere = await testClient(notes, { homes: testHomes() });
      const unknown = await elsewhere.callTool("notebook", { notebook: handle });
      await elsewhere.close();
      const alone = await testClient(notes);
      const unknownAlone = await alone.callTool("notebook", { notebook: handle });
      await alone.close();
      for (const refused of [unknown, unknownAlone]) {
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused.content)).toContain(`Unknown handle \\"${handle}\\"`);
      }
    });

    it("keeps a user's home across clients too", async () => {
      const mine = new CompiledServer({ use: [homesCapability()],
        name: "mine",
        version: "1.0.0",
        tools: [
          tool({
            name: "count",
            description: "Counts the user's calls",
            input: z.object({}),
            home: "user",
            handler: async (_args, ctx) => {
              const calls = ((await ctx.storage!.get<number>("calls")) ?? 0) + 1;
              await ctx.storage!.put("calls", calls);
              return String(calls);
            },
          }),
        ],
      });
      const homes = testHomes();
      for (const expected of ["1", "2"]) {
        const alice = await testClient(mine, { user: { subject: "alice" }, homes });
        expect((await alice.callTool("count")).content).toEqual([{ type: "text", text: expected }]);
        await alice.close();
      }
    });
  });
});
