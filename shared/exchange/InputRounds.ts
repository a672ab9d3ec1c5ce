/**
 * Multi round-trip requests (2026-07-28, "Multi Round-Trip Requests") behind the same handler
 * calls the session era uses: `ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()`.
 *
 * A handler runs from the top on every round. Each ask has a key (the caller's, or one counted
 * per method: `elicitation-1`, `sampling-1`, `roots-1`…); an ask whose key was answered — in this
 * request's `inputResponses`, or sealed into its `requestState` by an earlier round — resolves
 * with that answer. Any other ask is recorded and rejects with `InputRequired`, and the request
 * is answered with an `InputRequiredResult` listing every recorded ask, so asks made together
 * (`Promise.all`) go out together. Handlers must therefore reach their asks deterministically,
 * and do side effects after them; work before an ask is repeated each round.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { CONTROL_FLOW } from "../errors/HandlerFailure.ts";
import { requiredCapability } from "../protocol/requiredCapability.ts";
import { isObject } from "../jsonrpc/isObject.ts";

/** What an unanswered ask rejects with; the request is then answered with an `InputRequiredResult`. */
export class InputRequired extends Error {
  override readonly name = "InputRequired";
  readonly [CONTROL_FLOW] = true;
  constructor(readonly key: string) {
    super(`Input "${key}" is required from the client; the request will be answered with an InputRequiredResult`);
  }
}

/**
 * Why an answer does not have the result shape its ask needs (schema `InputResponse`), or
 * undefined when it does; loose beyond what a handler reads, as the schema's results are.
 */
const ANSWER_PROBLEM: Readonly<Record<string, (answer: Record<string, unknown>) => string | undefined>> = {
  "elicitation/create": (a) =>
    !["accept", "decline", "cancel"].includes(a.action as string)
      ? '"action" must be "accept", "decline" or "cancel"'
      : a.content !== undefined && !isObject(a.content)
        ? '"content" must be an object'
        : undefined,
  "sampling/createMessage": (a) =>
    a.role !== "user" && a.role !== "assistant" ? '"role" must be "user" or "assistant"' : !("content" in a) ? '"content" is required' : typeof a.model !== "string" ? '"model" must be a string' : undefined,
  "roots/list": (a) => (!Array.isArray(a.roots) || !a.roots.every((r) => isObject(r) && typeof r.uri === "string") ? '"roots" must be an array of { uri }' : undefined),
};

/** Why `answer` cannot answer an ask of `method`, or undefined when it can (a task's `tasks/update` checks answers with it). */
export function answerProblem(method: string, answer: unknown): string | undefined {
  if (!isObject(answer)) return "it must be an object";
  return ANSWER_PROBLEM[method]?.(answer);
}

const KEY_PREFIX: Readonly<Record<string, string>> = { "elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots" };

export class InputRounds {
  /** Answers this round can use: sealed earlier ones, then this request's `inputResponses`. */
  readonly #given: Record<string, unknown>;
  readonly #capabilities: Record<string, unknown>;
  readonly #counts = new Map<string, number>();
  /** Answers a handler used this round, to seal into the next `requestState`. */
  readonly used: Record<string, unknown> = {};
  /** Asks without answers, as `InputRequests`. */
  readonly pending: Record<string, { method: string; params: Record<string, unknown> }> = {};

  /** @throws McpError -32602 when `inputResponses` is present but not an object. */
  constructor(sealed: Record<string, unknown>, inputResponses: unknown, capabilities: Record<string, unknown>) {
    if (inputResponses !== undefined && (inputResponses === null || typeof inputResponses !== "object" || Array.isArray(inputResponses))) {
      throw McpError.invalidParams("inputResponses must be an object of answers keyed as the server asked");
    }
    this.#given = { ...sealed, ...(inputResponses as Record<string, unknown> | undefined) };
    this.#capabilities = capabilities;
  }

  get needsInput(): boolean {
    return Object.keys(this.pending).length > 0;
  }

  /**
   * The answer to one ask, or a rejection with `InputRequired` once it is recorded.
   * @throws McpError -32021 when the client did not declare what the ask needs; -32602 for an answer of the wrong shape.
   */
  async ask(method: string, params: Record<string, unknown>, key?: string): Promise<Record<string, unknown>> {
    const missing = requiredCapability(method, params, this.#capabilities);
    if (missing) {
      throw new McpError(400, ErrorCode.MissingRequiredClientCapability, `This request needs the client capability ${JSON.stringify(missing)}, which its _meta did not declare`, {
        requiredCapabilities: missing,
      });
    }
    const count = (this.#counts.get(method) ?? 0) + 1;
    this.#counts.set(method, count);
    const id = key ?? `${KEY_PREFIX[method]}-${count}`;
    if (Object.hasOwn(this.#given, id)) {
      const answer = this.#given[id];
      const problem = answerProblem(method, answer);
      if (problem !== undefined) throw McpError.invalidParams(`inputResponses["${id}"] is not a valid answer to ${method}: ${problem}`);
      this.used[id] = answer;
      return answer as Record<string, unknown>;
    }
    this.pending[id] = { method, params };
    throw new InputRequired(id);
  }
}
