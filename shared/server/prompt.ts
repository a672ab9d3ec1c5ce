/**
 * `prompt()`: declares a prompt, and brings the code that serves prompts (`prompts/list`,
 * `prompts/get`) and completes their arguments (`completion/complete`) with it.
 */
import { COMPLETION } from "../methods/completionMethods.ts";
import { type Featured, withFeatures } from "../definition/Feature.ts";
import type { Home } from "../definition/Home.ts";
import type { PromptArguments, PromptDefinition } from "../definition/PromptDefinition.ts";
import { PROMPTS } from "../methods/promptMethods.ts";

/** Types a prompt: `get` receives the parsed `arguments`, and `complete` may only name them. */
export function prompt<Args extends PromptArguments | undefined = undefined, const H extends Home = "session">(definition: PromptDefinition<Args, H>): PromptDefinition<Args, H> & Featured {
  return withFeatures(definition, [PROMPTS, COMPLETION]);
}
