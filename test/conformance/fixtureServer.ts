/**
 * The conformance fixture: a server definition with the tools, resources and prompts that the
 * official MCP conformance referee (`@modelcontextprotocol/conformance`) exercises, written from
 * the scenario descriptions (names and observable behaviour only). `npm run fixture` serves it;
 * `npm run conformance` runs the referee against it.
 */
import { z } from "zod";
import { defineServer, jsonSchema, prompt, resource, resourceTemplate, homes, skills, tasks, tool, toolError, watch } from "durable-mcp";
import { weatherSkill } from "../../example/weatherSkill.ts";
import { modernPrompts, modernTools } from "./modernFixture.ts";
import { taskTools } from "./taskFixture.ts";

/** A 1×1 red PNG and a 1 ms silent 8 kHz WAV, made for this fixture. */
export const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
export const SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const none = z.object({});
const text = (value: string) => ({ type: "text" as const, text: value });

/** The referee's JSON Schema 2020-12 probe: advertised exactly as written. */
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

export default defineServer({
  name: "durable-mcp-conformance-fixture",
  version: "1.0.0",
  // The Skills extension's scenarios (sep-2640-skills-*) read the example's skill; the tasks extension's, taskFixture.ts.
  use: [skills({ skills: [weatherSkill] }), tasks(), watch(), homes()],
  tools: [
    tool({ name: "test_simple_text", description: "Returns a simple text response", input: none, handler: async () => "This is a simple text response for testing." }),
    tool({
      name: "test_image_content",
      description: "Returns an image",
      input: none,
      handler: async () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
    }),
    tool({
      name: "test_audio_content",
      description: "Returns audio",
      input: none,
      handler: async () => ({ content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }] }),
    }),
    tool({
      name: "test_embedded_resource",
      description: "Returns an embedded resource",
      input: none,
      handler: async () => ({
        content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }],
      }),
    }),
    tool({
      name: "test_multiple_content_types",
      description: "Returns text, an image and a resource",
      input: none,
      handler: async () => ({
        content: [
          text("Multiple content types test:"),
          { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
          { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
        ],
      }),
    }),
    tool({
      name: "test_tool_with_logging",
      description: "Sends log messages while it runs",
      input: none,
      handler: async (_args, ctx) => {
        await ctx.log("info", "Tool execution started");
        await pause(50, ctx.signal);
        await ctx.log("info", "Tool processing data");
        await pause(50, ctx.signal);
        await ctx.log("info", "Tool execution completed");
        return "Tool with logging executed successfully";
      },
    }),
    tool({
      name: "test_tool_with_progress",
      description: "Reports progress while it runs",
      input: none,
      handler: async (_args, ctx) => {
        for (const progress of [0, 50, 100]) {
          await ctx.progress(progress, 100, `${progress}%`);
          if (progress < 100) await pause(50, ctx.signal);
        }
        return "Progress tool completed";
      },
    }),
    tool({ name: "test_error_handling", description: "Always fails", input: none, handler: async () => toolError("This tool intentionally returns an error for testing") }),
    tool({
      name: "test_sampling",
      description: "Asks the client's model to answer a prompt",
      input: z.object({ prompt: z.string().describe("The prompt to send") }),
      handler: async ({ prompt }, ctx) => {
        const result = await ctx.sample({ messages: [{ role: "user", content: text(prompt) }], maxTokens: 100 });
        const content = result.content as { type?: string; text?: string } | undefined;
        return `LLM response: ${content?.type === "text" ? content.text : JSON.stringify(content)}`;
      },
    }),
    tool({
      name: "test_elicitation",
      description: "Asks the user for a username and email",
      input: z.object({ message: z.string().describe("What to ask the user") }),
      handler: async ({ message }, ctx) => {
        const answer = await ctx.elicit({
          message,
          requestedSchema: {
            type: "object",
            properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
            required: ["username", "email"],
          },
        });
        return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    tool({
      name: "test_elicitation_sep1034_defaults",
      description: "Elicits fields that carry default values (SEP-1034)",
      input: none,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: "Please review and update the form fields with defaults",
          requestedSchema: {
            type: "object",
            properties: {
              name: { type: "string", description: "User name", default: "John Doe" },
              age: { type: "integer", description: "User age", default: 30 },
              score: { type: "number", description: "User score", default: 95.5 },
              status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
              verified: { type: "boolean", description: "Verification status", default: true },
            },
            required: [],
          },
        });
        return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    tool({
      name: "test_elicitation_sep1330_enums",
      description: "Elicits every enum form of SEP-1330",
      input: none,
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: "Please choose from the options",
          requestedSchema: {
            type: "object",
            properties: {
              untitledSingle: { type: "string", description: "Untitled single choice", enum: ["option1", "option2", "option3"] },
              titledSingle: {
                type: "string",
                description: "Titled single choice",
                oneOf: [
                  { const: "value1", title: "First Option" },
                  { const: "value2", title: "Second Option" },
                  { const: "value3", title: "Third Option" },
                ],
              },
              legacyEnum: { type: "string", description: "Legacy titled enum", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
              untitledMulti: { type: "array", description: "Untitled multiple choice", minItems: 1, maxItems: 3, items: { type: "string", enum: ["option1", "option2", "option3"] } },
              titledMulti: {
                type: "array",
                description: "Titled multiple choice",
                minItems: 1,
                maxItems: 3,
                items: {
                  anyOf: [
                    { const: "value1", title: "First Choice" },
                    { const: "value2", title: "Second Choice" },
                    { const: "value3", title: "Third Choice" },
                  ],
                },
              },
            },
            required: [],
          },
        });
        return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    tool({
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      input: jsonSchema(JSON_SCHEMA_2020_12 as unknown as { type: "object" }),
      handler: async (args) => `Received ${JSON.stringify(args)}`,
    }),
    tool({
      name: "test_reconnection",
      description: "Closes its response stream mid-call (SEP-1699 polling); the result arrives after the client resumes",
      input: none,
      handler: async (_args, ctx) => {
        ctx.closeStream();
        await pause(100, ctx.signal);
        return "Reconnection test completed";
      },
    }),
    ...modernTools,
    ...taskTools,
  ],
  resources: [
    resource({ uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain", read: async () => "This is the content of the static text resource." }),
    resource({
      uri: "test://static-binary",
      name: "static-binary",
      description: "A static binary resource (a PNG)",
      mimeType: "image/png",
      read: async () => Uint8Array.from(atob(RED_PIXEL_PNG), (c) => c.charCodeAt(0)),
    }),
    resource({ uri: "test://watched-resource", name: "watched-resource", description: "A resource clients may subscribe to", mimeType: "text/plain", read: async () => "Watched resource content" }),
  ],
  resourceTemplates: [
    resourceTemplate({
      uriTemplate: "test://template/{id}/data",
      name: "template-data",
      description: "Data for an id",
      mimeType: "application/json",
      read: async ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      complete: { id: (value) => ["123", "456", "789"].filter((id) => id.startsWith(value)) },
    }),
  ],
  prompts: [
    prompt({ name: "test_simple_prompt", description: "A prompt without arguments", get: async () => [{ role: "user", content: text("This is a simple prompt for testing.") }] }),
    prompt({
      name: "test_prompt_with_arguments",
      description: "A prompt with two arguments",
      arguments: z.object({ arg1: z.string().describe("First argument"), arg2: z.string().describe("Second argument") }),
      get: async ({ arg1, arg2 }) => [{ role: "user", content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }],
      complete: { arg1: (value) => ["test", "testing", "tested"].filter((v) => v.startsWith(value)) },
    }),
    prompt({
      name: "test_prompt_with_embedded_resource",
      description: "A prompt that embeds a resource",
      arguments: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
      get: async ({ resourceUri }) => [
        { role: "user", content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } } },
        { role: "user", content: text("Please process the embedded resource above.") },
      ],
    }),
    prompt({
      name: "test_prompt_with_image",
      description: "A prompt with an image",
      get: async () => [
        { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
        { role: "user", content: text("Please analyze the image above.") },
      ],
    }),
    ...modernPrompts,
  ],
  listChanged: { tools: true, prompts: true },
  caching: {
    "server/discover": { ttlMs: 300_000, cacheScope: "public" },
    "tools/list": { ttlMs: 300_000, cacheScope: "public" },
    "prompts/list": { ttlMs: 300_000, cacheScope: "public" },
    "resources/list": { ttlMs: 300_000, cacheScope: "public" },
    "resources/templates/list": { ttlMs: 300_000, cacheScope: "public" },
    "resources/read": { ttlMs: 0, cacheScope: "private" },
  },
});
