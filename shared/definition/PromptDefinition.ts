/**
 * How a server author declares prompts (MCP prompts spec): a name, string arguments described
 * with an object schema of any Standard Schema library, and an async `get` that returns the
 * messages.
 *
 * Prompt arguments are strings on the wire (`GetPromptRequestParams.arguments` is a string map),
 * so every field of `arguments` must accept a string: with zod `z.string()`, `z.enum([...])`,
 * optional or described as needed. Anything else fails at startup.
 */
import type { InferInput, InferOutput, StandardSchemaV1 } from "../schema/standardSchema.ts";
import type { Home } from "./Home.ts";
import type { Completer, ContextIn } from "./RequestContext.ts";
import type { ContentBlock, Meta, Role } from "./types.ts";

/** MCP `PromptMessage`. */
export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

/** MCP `GetPromptResult`. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

/** An object schema whose fields take strings (optional or not). */
export type PromptArguments = StandardSchemaV1<{ [name: string]: string | undefined }, unknown>;

/** The argument names of a prompt, for typing its completers. */
export type PromptArgumentName<Args> = Args extends PromptArguments ? keyof InferInput<Args> & string : never;

/**
 * A prompt, listed by `prompts/list` and rendered by `prompts/get`. Arguments are validated
 * before `get` runs; a failure answers -32602 (prompts spec, "Error Handling").
 *
 * @example
 * prompt({ name: "code_review", description: "Review code",
 *   arguments: z.object({ code: z.string().describe("The code"), language: z.string().optional() }),
 *   get: async ({ code, language }) => [{ role: "user", content: { type: "text", text: `Review this ${language ?? ""} code:\n${code}` } }],
 *   complete: { language: (value) => ["python", "rust"].filter((l) => l.startsWith(value)) } })
 */
export interface PromptDefinition<Args extends PromptArguments | undefined = PromptArguments | undefined, H extends Home = Home> {
  /** Unique within the server. */
  name: string;
  title?: string;
  description?: string;
  /** Advertised as `PromptArgument[]`: a field's description and title are its JSON Schema's; an optional field is not required. */
  arguments?: Args;
  /**
   * Makes it switchable per session with `ctx.setEnabled`, starting in this state. Leave it out
   * for a definition that is always on (see `ListKind.ts`).
   */
  enabled?: boolean;
  /**
   * OAuth scopes a request's token must grant for this to be listed and used; a call without them
   * gets 403 `insufficient_scope` naming them (step-up). Never offered where requests carry no
   * token (stdio, a server without `authorization`).
   */
  scopes?: readonly string[];
  /** Where `get` runs and whose storage `ctx.storage` is (see `Home.ts`); a handle travels in the argument it names. */
  home?: H;
  /** A message list, or a full result (e.g. with its own `description`). Without `arguments`, `args` is `{}`. */
  get(args: Args extends PromptArguments ? InferOutput<Args> : Record<string, never>, ctx: ContextIn<H>): Promise<PromptMessage[] | GetPromptResult>;
  /** Completers for `completion/complete` with `ref: { type: "ref/prompt", name }`. */
  complete?: Partial<Record<PromptArgumentName<Args>, Completer>>;
}
