/**
 * The conformance fixture's additions for the 2026-07-28 requirement set: the multi round-trip
 * tools and prompt, the capability and streaming probes, list-change triggers for
 * `subscriptions/listen`, and an `x-mcp-header` tool. Names and observable behaviour follow the
 * referee's scenarios; each handler uses the same context calls it would on a 2025 session.
 */
import { z } from "zod";
import { jsonSchema, prompt, tool } from "durable-mcp";
import type { ElicitParams, RequestContext } from "durable-mcp";

const none = z.object({});
const text = (value: string) => ({ type: "text" as const, text: value });
const form = (message: string, properties: Record<string, Record<string, unknown>>): ElicitParams => ({
  message,
  requestedSchema: { type: "object", properties, required: Object.keys(properties) },
});
const answerOf = (result: Record<string, unknown>) => JSON.stringify((result.content as object | undefined) ?? {});

const askName = (ctx: RequestContext, key = "user_name") => ctx.elicit(form("What is your name?", { name: { type: "string" } }), { key });
const askCapital = (ctx: RequestContext, key = "sample_request") =>
  ctx.sample({ messages: [{ role: "user", content: text("What is the capital of France?") }], maxTokens: 100 }, { key });

export const modernTools = [
  tool({
    name: "test_missing_capability",
    description: "Needs sampling; a client that did not declare it gets MissingRequiredClientCapability",
    input: none,
    handler: async (_args, ctx) => `Sampled: ${JSON.stringify((await askCapital(ctx)).content)}`,
  }),
  tool({
    name: "test_streaming_elicitation",
    description: "Asks the user for their name: an InputRequiredResult on 2026-07-28, never a request on the stream",
    input: none,
    handler: async (_args, ctx) => `Hello, ${answerOf(await askName(ctx))}`,
  }),
  tool({
    name: "test_logging_tool",
    description: "Logs at info level: sent only to requests that set a log level",
    input: none,
    handler: async (_args, ctx) => {
      await ctx.log("info", "test_logging_tool ran");
      return "Logging tool completed";
    },
  }),
  tool({
    name: "test_trigger_tool_change",
    description: "Announces that the tool list changed to every listener that asked for it",
    input: none,
    handler: async (_args, ctx) => {
      await ctx.listChanged("tools");
      return "Tool list change announced";
    },
  }),
  tool({
    name: "test_trigger_prompt_change",
    description: "Announces that the prompt list changed to every listener that asked for it",
    input: none,
    handler: async (_args, ctx) => {
      await ctx.listChanged("prompts");
      return "Prompt list change announced";
    },
  }),
  tool({
    name: "test_input_required_result_elicitation",
    description: "Asks the user for their name (input key user_name)",
    input: none,
    handler: async (_args, ctx) => `Hello, ${answerOf(await askName(ctx))}`,
  }),
  tool({
    name: "test_input_required_result_sampling",
    description: "Asks the client's model a question (input key sample_request)",
    input: none,
    handler: async (_args, ctx) => `The model said: ${JSON.stringify((await askCapital(ctx)).content)}`,
  }),
  tool({
    name: "test_input_required_result_list_roots",
    description: "Asks for the client's roots (input key client_roots)",
    input: none,
    handler: async (_args, ctx) => `Roots: ${JSON.stringify((await ctx.listRoots({ key: "client_roots" })).roots)}`,
  }),
  tool({
    name: "test_input_required_result_request_state",
    description: "Asks for a confirmation; the sealed requestState carries the round",
    input: none,
    handler: async (_args, ctx) => `Confirmed: ${answerOf(await ctx.elicit(form("Proceed?", { ok: { type: "boolean" } }), { key: "confirm" }))}`,
  }),
  tool({
    name: "test_input_required_result_multiple_inputs",
    description: "Asks for a name, a greeting from the model and the roots, all at once",
    input: none,
    handler: async (_args, ctx) => {
      const [name, greeting, roots] = await Promise.all([
        askName(ctx),
        ctx.sample({ messages: [{ role: "user", content: text("Say hello") }], maxTokens: 50 }, { key: "greeting" }),
        ctx.listRoots({ key: "client_roots" }),
      ]);
      return `Name ${answerOf(name)}, greeting ${JSON.stringify(greeting.content)}, roots ${JSON.stringify(roots.roots)}`;
    },
  }),
  tool({
    name: "test_input_required_result_multi_round",
    description: "Asks for a name, then, in a second round, a favourite colour",
    input: none,
    handler: async (_args, ctx) => {
      const name = await ctx.elicit(form("What is your name?", { name: { type: "string" } }), { key: "step1" });
      const colour = await ctx.elicit(form("What is your favourite colour?", { color: { type: "string" } }), { key: "step2" });
      return `${answerOf(name)} likes ${answerOf(colour)}`;
    },
  }),
  tool({
    name: "test_input_required_result_tampered_state",
    description: "Asks for a confirmation; a requestState altered by the client is refused",
    input: none,
    handler: async (_args, ctx) => `Confirmed: ${answerOf(await ctx.elicit(form("Proceed?", { ok: { type: "boolean" } }), { key: "confirm" }))}`,
  }),
  tool({
    name: "test_input_required_result_capabilities",
    description: "Asks only for what the client declared it can provide",
    input: none,
    handler: async (_args, ctx) => {
      const declared = ctx.client.capabilities;
      const asks: Promise<Record<string, unknown>>[] = [];
      if ("sampling" in declared) asks.push(askCapital(ctx));
      if ("elicitation" in declared) asks.push(askName(ctx));
      if ("roots" in declared) asks.push(ctx.listRoots({ key: "client_roots" }));
      return `Answers: ${JSON.stringify(await Promise.all(asks))}`;
    },
  }),
  tool({
    name: "test_header_param",
    description: "Echoes its region, which clients mirror into the Mcp-Param-Region header",
    input: jsonSchema({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } }, required: ["region"] }),
    handler: async (args) => `Region: ${String(args.region)}`,
  }),
];

export const modernPrompts = [
  prompt({
    name: "test_input_required_result_prompt",
    description: "Asks the user for context before building its message (input key user_context)",
    get: async (_args, ctx) => {
      const answer = await ctx.elicit(form("What context should the prompt use?", { context: { type: "string" } }), { key: "user_context" });
      return [{ role: "user", content: text(`Context: ${answerOf(answer)}`) }];
    },
  }),
];
