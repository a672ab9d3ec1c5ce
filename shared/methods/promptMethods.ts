/**
 * `prompts/list` and `prompts/get` (MCP prompts spec). Arguments are validated with the prompt's
 * schema before `get` runs; an unknown prompt or invalid arguments answer -32602 ("Invalid
 * prompt name", "Missing required arguments" in the spec's "Error Handling"). A request without
 * `arguments` is validated as `{}`; arguments past the environment's `MAX_ARGUMENT_*` bounds are
 * refused before validation (`ArgumentLimits.ts`), -32602 too. A prompt switched off for the session (`ListKind.ts`) is
 * neither listed nor answered; `listChanged` is true once a prompt can be switched.
 */
import { configOf } from "../config/configOf.ts";
import { McpError } from "../errors/McpError.ts";
import { argumentsPastLimits, limitsWith } from "../schema/ArgumentLimits.ts";
import { isObject } from "../jsonrpc/isObject.ts";
import type { Feature } from "../definition/Feature.ts";
import { isOffered, switchable } from "../definition/ListKind.ts";
import { type MethodGroup, NO_METHODS, type Result } from "../definition/Method.ts";
import { listResult } from "./paginate.ts";
import { promptArguments } from "./promptArguments.ts";
import type { PromptDefinition } from "../definition/PromptDefinition.ts";
import { type JsonSchemaConverter, validateStandard } from "../schema/standardSchema.ts";
import { toGetPromptResult } from "./toGetPromptResult.ts";
import { checkHome, type HandleHome, planFor } from "../definition/Home.ts";

/** Prompts, as `prompt()` brings them to a server. */
export const PROMPTS: Feature = { name: "prompts", compile: (options) => promptMethods(options.prompts ?? [], options.toJsonSchema) };

/** @example promptMethods(definition.prompts ?? []).methods["prompts/get"]({ name: "review" }, ctx) */
export function promptMethods(prompts: readonly PromptDefinition[], convert?: JsonSchemaConverter): MethodGroup {
  if (prompts.length === 0) return NO_METHODS;
  const byName = new Map<string, PromptDefinition>();
  const homes = new Map<string, "user" | HandleHome>();
  const listed: { prompt: PromptDefinition; entry: Result }[] = [];
  for (const prompt of prompts) {
    const what = `Prompt ${JSON.stringify(prompt.name)}`;
    if (typeof prompt.name !== "string" || prompt.name === "") throw new TypeError(`${what} needs a non-empty "name"`);
    if (byName.has(prompt.name)) throw new TypeError(`Prompt ${prompt.name} is defined twice`);
    if (typeof prompt.get !== "function") throw new TypeError(`${what} needs a "get" function`);
    byName.set(prompt.name, prompt);
    const entry = describePrompt(prompt, what, convert);
    listed.push({ prompt, entry });
    const home = checkHome(what, prompt.home);
    if (typeof home === "object" && !(entry.arguments as { name: string }[] | undefined)?.some((a) => a.name === home.handle)) {
      throw new TypeError(`${what} keeps its state under a handle in its "${home.handle}" argument, but has no such argument; add it, optional`);
    }
    if (home) homes.set(prompt.name, home);
  }
  return {
    ...(homes.size > 0 && {
      homeOf: (method: string, params: Record<string, unknown>) => {
        const home = method === "prompts/get" && typeof params.name === "string" ? homes.get(params.name) : undefined;
        return home && planFor(home, params.arguments, params.name as string);
      },
    }),
    capabilities: { prompts: { listChanged: switchable(prompts) } },
    methods: {
      "prompts/list": async (params, ctx) => {
        const visible = listed.filter(({ prompt }) => isOffered("prompt", prompt.name, prompt, ctx));
        return listResult("prompts", visible.map(({ entry }) => entry), params.cursor);
      },
      "prompts/get": async (params, ctx) => {
        if (typeof params.name !== "string") throw McpError.invalidParams('prompts/get needs a "name" string');
        const prompt = byName.get(params.name);
        if (!prompt || !isOffered("prompt", prompt.name, prompt, ctx)) throw McpError.invalidParams(`Unknown prompt: ${params.name}`);
        const raw = params.arguments ?? {};
        if (!isObject(raw)) throw McpError.invalidParams('prompts/get "arguments" must be an object of strings');
        // Bounded before validation, as a tool's are (ArgumentLimits.ts): the environment's limits.
        const past = argumentsPastLimits(raw, limitsWith({}, configOf(ctx.env)));
        if (past !== undefined) throw McpError.invalidParams(`Invalid arguments for prompt ${prompt.name}:\n${past}`);
        let args: Record<string, unknown> = {};
        if (prompt.arguments) {
          const parsed = await validateStandard(prompt.arguments, raw);
          if (!parsed.ok) throw McpError.invalidParams(`Invalid arguments for prompt ${prompt.name}:\n${parsed.message}`);
          args = parsed.value as Record<string, unknown>;
        }
        return { ...toGetPromptResult(await prompt.get(args as never, ctx), `Prompt ${prompt.name}`, prompt.description) };
      },
    },
  };
}

/** MCP `Prompt`, with only the fields that are set; completer names are checked against the arguments. */
function describePrompt(prompt: PromptDefinition, what: string, convert: JsonSchemaConverter | undefined): Result {
  const args = prompt.arguments ? promptArguments(prompt.arguments, what, convert) : [];
  for (const name of Object.keys(prompt.complete ?? {})) {
    if (!args.some((a) => a.name === name)) throw new TypeError(`${what} has a completer for "${name}", which is not one of its arguments`);
  }
  const entry: Result = { name: prompt.name };
  if (prompt.title !== undefined) entry.title = prompt.title;
  if (prompt.description !== undefined) entry.description = prompt.description;
  if (prompt.arguments) entry.arguments = args;
  return entry;
}
