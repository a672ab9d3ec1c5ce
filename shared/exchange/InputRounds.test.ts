import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { mcpError } from "../testing/testKit.ts";
import { InputRequired, InputRounds } from "./InputRounds.ts";

const ALL = { elicitation: {}, sampling: {}, roots: {} };
const accept = { action: "accept", content: { name: "Ada" } };
const decline = { action: "decline" };
const message = { role: "assistant", content: { type: "text", text: "hi" }, model: "m" };
const roots = { roots: [{ uri: "file:///home", name: "home" }] };
const form = { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
const samplingParams = { messages: [], maxTokens: 10 };

/** The InputRequired `promise` rejects with; fails the test if it resolves or rejects otherwise. */
async function inputRequired(promise: Promise<unknown>): Promise<InputRequired> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof InputRequired)) throw new Error(`expected InputRequired, got ${String(error)}`);
  return error;
}

describe("InputRounds", () => {
  it("records an unanswered ask and rejects it with InputRequired", async () => {
    const rounds = new InputRounds({}, undefined, ALL);
    expect(rounds.needsInput).toBe(false);
    const error = await inputRequired(rounds.ask("elicitation/create", form));
    expect(error.key).toBe("elicitation-1");
    expect(error.name).toBe("InputRequired");
    expect(rounds.needsInput).toBe(true);
    expect(rounds.pending).toEqual({ "elicitation-1": { method: "elicitation/create", params: form } });
    expect(rounds.used).toEqual({});
  });

  it("numbers default keys per method", async () => {
    const rounds = new InputRounds({}, undefined, ALL);
    expect((await inputRequired(rounds.ask("elicitation/create", form))).key).toBe("elicitation-1");
    expect((await inputRequired(rounds.ask("sampling/createMessage", samplingParams))).key).toBe("sampling-1");
    expect((await inputRequired(rounds.ask("elicitation/create", form))).key).toBe("elicitation-2");
    expect((await inputRequired(rounds.ask("roots/list", {}))).key).toBe("roots-1");
    expect((await inputRequired(rounds.ask("sampling/createMessage", samplingParams))).key).toBe("sampling-2");
    expect(Object.keys(rounds.pending)).toEqual(["elicitation-1", "sampling-1", "elicitation-2", "roots-1", "sampling-2"]);
  });

  it("uses an explicit key as given", async () => {
    const rounds = new InputRounds({}, undefined, ALL);
    expect((await inputRequired(rounds.ask("elicitation/create", form, "confirm-delete"))).key).toBe("confirm-delete");
    expect(rounds.pending).toHaveProperty("confirm-delete");
    const answered = new InputRounds({}, { "confirm-delete": accept }, ALL);
    expect(await answered.ask("elicitation/create", form, "confirm-delete")).toEqual(accept);
  });

  it("answers from this request's inputResponses", async () => {
    const rounds = new InputRounds({}, { "elicitation-1": accept, "sampling-1": message, "roots-1": roots }, ALL);
    expect(await rounds.ask("elicitation/create", form)).toEqual(accept);
    expect(await rounds.ask("sampling/createMessage", samplingParams)).toEqual(message);
    expect(await rounds.ask("roots/list", {})).toEqual(roots);
    expect(rounds.needsInput).toBe(false);
    expect(rounds.pending).toEqual({});
  });

  it("answers from the sealed state of earlier rounds", async () => {
    const rounds = new InputRounds({ "elicitation-1": accept }, {}, ALL);
    expect(await rounds.ask("elicitation/create", form)).toEqual(accept);
    expect(rounds.used).toEqual({ "elicitation-1": accept });
  });

  it("prefers inputResponses over sealed answers under the same key", async () => {
    const rounds = new InputRounds({ "elicitation-1": decline }, { "elicitation-1": accept }, ALL);
    expect(await rounds.ask("elicitation/create", form)).toEqual(accept);
  });

  it("keeps every answer it used, sealed or new, to seal into the next state", async () => {
    const rounds = new InputRounds({ "elicitation-1": accept }, { "sampling-1": message }, ALL);
    await rounds.ask("elicitation/create", form);
    await rounds.ask("sampling/createMessage", samplingParams);
    await inputRequired(rounds.ask("roots/list", {}));
    expect(rounds.used).toEqual({ "elicitation-1": accept, "sampling-1": message });
    expect(Object.keys(rounds.pending)).toEqual(["roots-1"]);
  });

  it("does not count answers nobody asked for as used", async () => {
    const rounds = new InputRounds({ "elicitation-7": accept }, { "sampling-1": message }, ALL);
    expect(rounds.used).toEqual({});
    await rounds.ask("sampling/createMessage", samplingParams);
    expect(rounds.used).toEqual({ "sampling-1": message });
  });

  it("keeps extra fields of an answer", async () => {
    const rich = { ...message, stopReason: "endTurn", _meta: { x: 1 } };
    expect(await new InputRounds({}, { "sampling-1": rich }, ALL).ask("sampling/createMessage", samplingParams)).toEqual(rich);
  });

  it("records every ask made together with Promise.all", async () => {
    const rounds = new InputRounds({}, { "roots-1": roots }, ALL);
    const all = Promise.all([
      rounds.ask("elicitation/create", form),
      rounds.ask("sampling/createMessage", samplingParams),
      rounds.ask("roots/list", {}),
      rounds.ask("elicitation/create", { ...form, message: "Again?" }, "again"),
    ]);
    await inputRequired(all);
    expect(rounds.pending).toEqual({
      "elicitation-1": { method: "elicitation/create", params: form },
      "sampling-1": { method: "sampling/createMessage", params: samplingParams },
      again: { method: "elicitation/create", params: { ...form, message: "Again?" } },
    });
    expect(rounds.used).toEqual({ "roots-1": roots });
  });

  it("refuses an answer of the wrong shape with -32602", async () => {
    const cases: [string, unknown][] = [
      ["elicitation/create", 12345],
      ["elicitation/create", { action: "maybe" }],
      ["elicitation/create", { action: "accept", content: "Ada" }],
      ["sampling/createMessage", { role: "user", content: {} }],
      ["sampling/createMessage", { role: "system", content: {}, model: "m" }],
      ["roots/list", { roots: [{ name: "no uri" }] }],
      ["roots/list", null],
    ];
    const prefix: Record<string, string> = { "elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots" };
    for (const [method, answer] of cases) {
      const rounds = new InputRounds({}, { [`${prefix[method]}-1`]: answer }, ALL);
      const error = await mcpError(rounds.ask(method, {}));
      expect(error.code, JSON.stringify(answer)).toBe(ErrorCode.InvalidParams);
      expect(error.status).toBe(400);
      expect(error.message).toContain(`inputResponses["${prefix[method]}-1"] is not a valid answer to ${method}`);
      expect(rounds.used).toEqual({});
    }
  });

  it("refuses inputResponses that are not an object", () => {
    for (const inputResponses of [null, [], [accept], "answers", 1]) {
      let error: unknown;
      try {
        new InputRounds({}, inputResponses, ALL);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(inputResponses)).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((error as McpError).status).toBe(400);
    }
    expect(() => new InputRounds({}, undefined, ALL)).not.toThrow();
  });

  it("refuses an ask the client's capabilities do not allow with -32021, naming what is missing", async () => {
    const cases: [Record<string, unknown>, string, Record<string, unknown>, Record<string, unknown>][] = [
      [{}, "sampling/createMessage", samplingParams, { sampling: {} }],
      [{ elicitation: {} }, "roots/list", {}, { roots: {} }],
      [{ sampling: {} }, "elicitation/create", form, { elicitation: {} }],
      [{}, "elicitation/create", { mode: "url", url: "https://x.test", message: "m", elicitationId: "e" }, { elicitation: { url: {} } }],
      [{ elicitation: {} }, "elicitation/create", { mode: "url", url: "https://x.test", message: "m", elicitationId: "e" }, { elicitation: { url: {} } }],
      [{ elicitation: { url: {} } }, "elicitation/create", form, { elicitation: { form: {} } }],
    ];
    for (const [capabilities, method, params, required] of cases) {
      const rounds = new InputRounds({}, undefined, capabilities);
      const error = await mcpError(rounds.ask(method, params));
      expect(error.code, `${method} with ${JSON.stringify(capabilities)}`).toBe(ErrorCode.MissingRequiredClientCapability);
      expect(error.status).toBe(400);
      expect(error.data).toEqual({ requiredCapabilities: required });
      expect(rounds.pending).toEqual({});
    }
  });

  it("refuses an ask the client cannot serve even when an answer was sent", async () => {
    const rounds = new InputRounds({}, { "sampling-1": message }, {});
    expect((await mcpError(rounds.ask("sampling/createMessage", samplingParams))).code).toBe(ErrorCode.MissingRequiredClientCapability);
  });

  it("allows form mode with elicitation: {} and URL mode with elicitation.url", async () => {
    expect((await inputRequired(new InputRounds({}, undefined, { elicitation: {} }).ask("elicitation/create", form))).key).toBe("elicitation-1");
    const url = { mode: "url", url: "https://x.test", message: "m", elicitationId: "e" };
    expect((await inputRequired(new InputRounds({}, undefined, { elicitation: { url: {} } }).ask("elicitation/create", url))).key).toBe("elicitation-1");
    expect((await inputRequired(new InputRounds({}, undefined, { elicitation: { form: {}, url: {} } }).ask("elicitation/create", form))).key).toBe("elicitation-1");
  });
});
