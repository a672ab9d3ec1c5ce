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
import { McpError } from "../errors/McpError.ts";
import { isObject } from "../jsonrpc/isObject.ts";
import type { Feature } from "../definition/Feature.ts";
import { isOffered } from "../definition/ListKind.ts";
import { type MethodGroup, NO_METHODS } from "../definition/Method.ts";
import type { PromptDefinition } from "../definition/PromptDefinition.ts";
import type { ResourceTemplateDefinition } from "../definition/ResourceDefinition.ts";
import type { Completer } from "../definition/RequestContext.ts";
import { checkHome, type HandleHome, type HomePlan, planFor } from "../definition/Home.ts";

/** Completion spec, "Completion Results": "Maximum 100 items per response". */
export const MAX_COMPLETION_VALUES = 100;

type Ref = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** MCP `CompleteRequestParams`, checked; or why the params are not that. */
function readParams(params: Record<string, unknown>): { ref: Ref; argument: { name: string; value: string }; arguments: Record<string, string> } | string {
  const { ref, argument, context } = params;
  if (!isObject(ref)) return '"ref" must be { type: "ref/prompt", name } or { type: "ref/resource", uri }';
  if (ref.type === "ref/prompt" ? typeof ref.name !== "string" : ref.type !== "ref/resource" || typeof ref.uri !== "string") {
    return '"ref" must be { type: "ref/prompt", name } or { type: "ref/resource", uri }';
  }
  if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") return '"argument" must be { name, value } with string values';
  if (context !== undefined && !isObject(context)) return '"context" must be an object';
  const given = context?.arguments;
  if (given !== undefined && !(isObject(given) && Object.values(given).every((v) => typeof v === "string"))) return '"context.arguments" must map names to strings';
  return { ref: ref as Ref, argument: { name: argument.name, value: argument.value }, arguments: (given as Record<string, string> | undefined) ?? {} };
}

type Completers = Partial<Record<string, Completer>>;

/** Completion of prompt arguments and template variables, as `prompt()` and `resourceTemplate()` bring it. */
export const COMPLETION: Feature = { name: "completion", compile: (options) => completionMethods(options.prompts ?? [], options.resourceTemplates ?? []) };

/** @example completionMethods(definition.prompts ?? [], definition.resourceTemplates ?? []) */
export function completionMethods(prompts: readonly PromptDefinition[], templates: readonly ResourceTemplateDefinition[]): MethodGroup {
  if (prompts.length === 0 && templates.length === 0) return NO_METHODS;
  const forPrompt = new Map(prompts.map((p) => [p.name, p]));
  const forTemplate = new Map(templates.map((t) => [t.uriTemplate, t]));
  const homed = [...prompts, ...templates].some((d) => d.home !== undefined && d.home !== "session");
  return {
    // A completer runs where its prompt or template does: in the user's home, or in the handle's
    // the client already chose (`context.arguments`); with no handle chosen yet, in the request.
    ...(homed && {
      homeOf: (_method: string, params: Record<string, unknown>): HomePlan | undefined => {
        const parsed = readParams(params);
        if (typeof parsed === "string") return undefined;
        const { ref } = parsed;
        const definition = ref.type === "ref/prompt" ? forPrompt.get(ref.name) : forTemplate.get(ref.uri);
        const home = definition && checkHome("", definition.home);
        if (!home) return undefined;
        const chosen = (home as HandleHome).handle === undefined ? undefined : parsed.arguments[(home as HandleHome).handle];
        return home === "user" || chosen !== undefined ? planFor(home, parsed.arguments, definition.name) : undefined;
      },
    }),
    capabilities: { completions: {} },
    methods: {
      "completion/complete": async (params, ctx) => {
        const parsed = readParams(params);
        if (typeof parsed === "string") throw McpError.invalidParams(`Invalid completion/complete params:\n${parsed}`);
        const { ref, argument } = parsed;
        const prompt = ref.type === "ref/prompt" ? forPrompt.get(ref.name) : undefined;
        const template = ref.type === "ref/resource" ? forTemplate.get(ref.uri) : undefined;
        const completers: Completers | undefined =
          prompt && isOffered("prompt", prompt.name, prompt, ctx)
            ? (prompt.complete ?? {})
            : template && isOffered("resourceTemplate", template.uriTemplate, template, ctx)
              ? (template.complete ?? {})
              : undefined;
        if (!completers) {
          throw McpError.invalidParams(ref.type === "ref/prompt" ? `Unknown prompt: ${ref.name}` : `Unknown resource template: ${ref.uri}`);
        }
        const complete = Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
        if (!complete) return { completion: { values: [], total: 0, hasMore: false } };
        // A RequestContext is a plain object of own fields (see Session), so a spread keeps them all.
        const values = await complete(argument.value, { ...ctx, arguments: parsed.arguments });
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
