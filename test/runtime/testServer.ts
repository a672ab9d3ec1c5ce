/**
 * The server the runtime and contract tests serve: the example's tools plus tools built to probe
 * the runtime (slow handlers that record their abort, large replies, a tool hidden until another
 * switches it on, change announcements, task tools that note what their handlers saw or ask the
 * client). Runtime-free, so workerd (`testWorker.ts`) and Deno (`test/support/denoServer.ts
 * --server`) serve the very same definition.
 */
import { z } from "zod";
import { use, tools as exampleTools } from "../../example/server.ts";
import { defineServer, resource, resourceTemplate, tool } from "durable-mcp";
import { pause } from "../support/pause.ts";

/**
 * What the task tools saw, by `ctx.taskId`: how often the handler started, the abort reason it
 * heard, and whether it returned after that. Test-only memory: `tasks.test.ts` reads it directly,
 * as the task Durable Objects of the runtime tests run in the test's own isolate.
 */
export const taskProbes = new Map<string, { runs: number; abortedWith?: string; returnedAfterAbort?: boolean }>();

function probe(taskId: string | undefined) {
  const key = taskId ?? "(no task)";
  const entry = taskProbes.get(key) ?? { runs: 0 };
  taskProbes.set(key, entry);
  return entry;
}

export const testServer = defineServer({
  name: "runtime-test-server",
  version: "1.0.0",
  // The example's tools are zod/mini schemas; classic zod's converter reads them too.
  toJsonSchema: z.toJSONSchema,
  // The example's alert board names its view: the example's extensions come with its tools.
  // With otlp(): spans to the collector an OTEL_EXPORTER_OTLP_ENDPOINT names; off without one.
  use,
  tools: [
    ...exampleTools,
    tool({
      name: "wait",
      description: "Waits `ms` milliseconds (or until aborted), reporting progress; records an abort in session storage",
      input: z.strictObject({ ms: z.number().int().min(0), label: z.string().default("wait") }),
      handler: async ({ ms, label }, ctx) => {
        await ctx.progress(0, 1, "started");
        try {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, ms);
            ctx.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(ctx.signal.reason);
            });
          });
        } catch (reason) {
          await ctx.storage?.put(`aborted:${label}`, String(typeof reason === "symbol" ? reason.description : reason));
          throw reason;
        }
        return `waited ${ms} ms`;
      },
    }),
    tool({
      name: "whoami",
      description: "Returns the session id and what the request knows about its client, as the handler sees them",
      input: z.strictObject({}),
      handler: async (_args, ctx) => JSON.stringify({ session: ctx.session?.id, client: ctx.client }),
    }),
    tool({
      name: "touch",
      description: "Reports test://counter as updated to subscribers",
      input: z.strictObject({}),
      handler: async (_args, ctx) => {
        await ctx.resourceUpdated("test://counter");
        return "touched";
      },
    }),
    tool({
      name: "vault",
      description: "Hidden until unlock switches it on for the session",
      input: z.strictObject({}),
      enabled: false,
      handler: async () => "opened",
    }),
    tool({
      name: "unlock",
      description: "Switches vault on (or off) for this session",
      input: z.strictObject({ on: z.boolean().default(true) }),
      handler: async ({ on }, ctx) => {
        if (!ctx.session) return "no session to unlock";
        await ctx.session.setEnabled("tool", "vault", on);
        return on ? "unlocked" : "locked";
      },
    }),
    tool({
      name: "announce",
      description: "Tells every listener that the tool list changed",
      input: z.strictObject({}),
      handler: async (_args, ctx) => {
        await ctx.listChanged("tools");
        return "announced";
      },
    }),
    tool({
      name: "blob",
      description: "Returns `bytes` characters of text (`fill`, then one `last` character if given), after a progress notification when asked",
      input: z.strictObject({ bytes: z.number().int().min(0).max(8_000_000), last: z.string().max(1).default(""), progress: z.boolean().default(false) }),
      handler: async ({ bytes, last, progress }, ctx) => {
        if (progress) await ctx.progress(0, 1, "writing");
        return "x".repeat(bytes) + last;
      },
    }),
    // The task tools come last: the tools above keep their places in listings other tests pin.
    tool({
      name: "task_steps",
      description: "Runs only as a task: `steps` steps of `ms` milliseconds each, reporting each as progress",
      input: z.strictObject({ steps: z.number().int().min(0).max(100), ms: z.number().int().min(0).max(10_000) }),
      task: "required",
      handler: async ({ steps, ms }, ctx) => {
        probe(ctx.taskId).runs++;
        for (let step = 1; step <= steps; step++) {
          await pause(ms, ctx.signal);
          await ctx.progress(step, steps, `step ${step} of ${steps}`);
        }
        return `finished ${steps} steps`;
      },
    }),
    tool({
      name: "task_until_cancelled",
      description: "Runs only as a task: waits `ms` milliseconds; aborted, it records the reason and still returns (a result the task must discard)",
      input: z.strictObject({ ms: z.number().int().min(0).default(60_000) }),
      task: "required",
      handler: async ({ ms }, ctx) => {
        const seen = probe(ctx.taskId);
        seen.runs++;
        try {
          await pause(ms, ctx.signal);
          return "waited it out";
        } catch (reason) {
          seen.abortedWith = typeof reason === "symbol" ? reason.description : String(reason);
          // Returns rather than rethrows: a handler that ignores its abort must not revive the task.
          seen.returnedAfterAbort = true;
          return "returned after the abort";
        }
      },
    }),
    tool({
      name: "task_consults",
      description: "Runs only as a task: asks the client's model about `topic` and lists its roots, both at once, then reports both",
      input: z.strictObject({ topic: z.string() }),
      task: "required",
      handler: async ({ topic }, ctx) => {
        const [sampled, { roots }] = await Promise.all([
          ctx.sample({ messages: [{ role: "user", content: { type: "text", text: `One line on ${topic}` } }], maxTokens: 50 }),
          ctx.listRoots(),
        ]);
        const said = [sampled.content].flat().map((block) => (block.type === "text" ? block.text : `(${block.type})`)).join(" ");
        return `${sampled.model} said: ${said}; roots: ${roots.map((root) => root.uri).join(", ")}`;
      },
    }),
    tool({
      name: "task_asks_large",
      description: "Runs only as a task: asks the client a question of `chars` characters (past 2 MiB, more than the task object stores in one value)",
      input: z.strictObject({ chars: z.number().int().min(1).max(4_000_000) }),
      task: "required",
      handler: async ({ chars }, ctx) => {
        probe(ctx.taskId).runs++;
        const answer = await ctx.elicit({ message: "x".repeat(chars), requestedSchema: { type: "object", properties: {} } });
        return `answered ${answer.action}`;
      },
    }),
    tool({
      name: "fail",
      description: "Throws an Error with the given message: what a handler's failure leaves in logs and traces",
      input: z.strictObject({ message: z.string() }),
      handler: async ({ message }) => {
        throw new Error(message);
      },
    }),
    tool({
      name: "scratch",
      description: "A scratch pad under a handle: writes `text` and returns the handle, or throws an error that names it",
      input: z.strictObject({ scratch: z.string().optional(), text: z.string().default(""), fail: z.boolean().default(false) }),
      home: { handle: "scratch" },
      handler: async ({ text, fail }, ctx) => {
        if (fail) throw new Error(`scratch pad ${ctx.handle} is broken`);
        await ctx.storage.put("text", text);
        return ctx.handle;
      },
    }),
  ],
  resources: [resource({ uri: "test://counter", name: "counter", description: "A resource tests subscribe to", mimeType: "text/plain", read: async () => "0" })],
  resourceTemplates: [
    resourceTemplate({ uriTemplate: "scratch://{scratch}/text", name: "scratch", home: { handle: "scratch" }, read: async (_vars, _uri, ctx) => (await ctx.storage.get<string>("text")) ?? "" }),
  ],
});

export default testServer;
