/**
 * What a prompt's `get` returned → a `prompts/get` result (MCP `GetPromptResult`). A bare message
 * list gets the prompt's own description; a full result passes through. Each message is checked
 * for a role and a content block, because a malformed one would reach the client as invalid MCP.
 *
 * A malformed return is a bug in the server: it throws a TypeError, which the error boundary logs
 * and answers as -32603 (prompts spec, "Error Handling").
 */
import { isObject } from "../jsonrpc/isObject.ts";
import type { GetPromptResult, PromptMessage } from "../definition/PromptDefinition.ts";

const ROLES = new Set(["user", "assistant"]);
const CONTENT_TYPES = new Set(["text", "image", "audio", "resource_link", "resource"]);

/** @example toGetPromptResult([{ role: "user", content: { type: "text", text: "hi" } }], "Prompt p", "Says hi") */
export function toGetPromptResult(value: PromptMessage[] | GetPromptResult, what: string, description?: string): GetPromptResult {
  let result: GetPromptResult;
  if (Array.isArray(value)) result = description === undefined ? { messages: value } : { description, messages: value };
  else if (isObject(value) && Array.isArray(value.messages)) result = value;
  else throw new TypeError(`${what} returned ${typeof value}; return PromptMessage[] or { messages: [...] }`);
  result.messages.forEach((message: unknown, i) => {
    const problem = messageProblem(message);
    if (problem) throw new TypeError(`${what} returned messages[${i}] ${problem}`);
  });
  return result;
}

function messageProblem(message: unknown): string | undefined {
  if (!isObject(message)) return "that is not an object";
  if (!ROLES.has(message.role as string)) return `with role ${JSON.stringify(message.role)}; use "user" or "assistant"`;
  const content = message.content;
  if (!isObject(content) || !CONTENT_TYPES.has(content.type as string)) {
    return `without a content block; "content" is one object with "type" text, image, audio, resource_link or resource`;
  }
  return undefined;
}
