/**
 * `completion/complete` (MCP completion spec): suggestions for a prompt argument
 * (`ref/prompt`, by name) or a resource template variable (`ref/resource`, by its `uriTemplate`).
 * An unknown prompt or template, or one switched off for the session, is -32602; an argument
 * without a completer gets no suggestions.
 *
 * The completer may return any number of values, best first; the reply carries at most
 * `MAX_COMPLETION_VALUES`, the full count as `total`, and `hasMore` when some were cut.
 * Advertised (`completions: {}`) whenever the server has prompts or resource templates.
 */
import { z } from "zod";
import { McpError } from "../errors/McpError.ts";
import { isEnabled } from "./ListKind.ts";
import { type MethodGroup, NO_METHODS } from "./Method.ts";
import type { PromptDefinition } from "./PromptDefinition.ts";
import type { ResourceTemplateDefinition } from "./ResourceDefinition.ts";
import type { Completer } from "./types.ts";

/** Completion spec, "Completion Results": "Maximum 100 items per response". */
export const MAX_COMPLETION_VALUES = 100;

/** MCP `CompleteRequestParams`. */
const CompleteParams = z.object({
  ref: z.discriminatedUnion("type", [
    z.object({ type: z.literal("ref/prompt"), name: z.string() }),
    z.object({ type: z.literal("ref/resource"), uri: z.string() }),
  ]),
  argument: z.object({ name: z.string(), value: z.string() }),
  context: z.object({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
});

type Completers = Partial<Record<string, Completer>>;

/** @example completionMethods(definition.prompts ?? [], definition.resourceTemplates ?? []) */
export function completionMethods(prompts: readonly PromptDefinition[], templates: readonly ResourceTemplateDefinition[]): MethodGroup {
  if (prompts.length === 0 && templates.length === 0) return NO_METHODS;
  const forPrompt = new Map(prompts.map((p) => [p.name, p]));
  const forTemplate = new Map(templates.map((t) => [t.uriTemplate, t]));
  return {
    capabilities: { completions: {} },
    methods: {
      "completion/complete": async (params, ctx, hooks) => {
        const parsed = CompleteParams.safeParse(params);
        if (!parsed.success) throw McpError.invalidParams(`Invalid completion/complete params:\n${z.prettifyError(parsed.error)}`);
        const { ref, argument, context } = parsed.data;
        const overrides = hooks.overrides();
        const prompt = ref.type === "ref/prompt" ? forPrompt.get(ref.name) : undefined;
        const template = ref.type === "ref/resource" ? forTemplate.get(ref.uri) : undefined;
        const completers: Completers | undefined =
          prompt && isEnabled("prompt", prompt.name, prompt.enabled, overrides)
            ? (prompt.complete ?? {})
            : template && isEnabled("resourceTemplate", template.uriTemplate, template.enabled, overrides)
              ? (template.complete ?? {})
              : undefined;
        if (!completers) {
          throw McpError.invalidParams(ref.type === "ref/prompt" ? `Unknown prompt: ${ref.name}` : `Unknown resource template: ${ref.uri}`);
        }
        const complete = Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
        if (!complete) return { completion: { values: [], total: 0, hasMore: false } };
        // A RequestContext is a plain object of own fields (see Session), so a spread keeps them all.
        const values = await complete(argument.value, { ...ctx, arguments: context?.arguments ?? {} });
        if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
          const owner = ref.type === "ref/prompt" ? `prompt ${ref.name}` : `resource template ${ref.uri}`;
          throw new TypeError(`The completer for ${owner}'s "${argument.name}" must return an array of strings`);
        }
        return {
          completion: { values: values.slice(0, MAX_COMPLETION_VALUES), total: values.length, hasMore: values.length > MAX_COMPLETION_VALUES },
        };
      },
    },
  };
}
