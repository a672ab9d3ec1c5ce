import { describe, expect, it } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { mcpError } from "../testing/testKit.ts";
import { paramsDigest, RequestState } from "./RequestState.ts";

const SECRET = "0123456789abcdef0123456789abcdef";
const TTL_MS = 60_000;
const NOW = 1_700_000_000_000;
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const answers = { "elicitation-1": { action: "accept", content: { name: "Ada" } }, "roots-1": { roots: [] } };

/** `token` with the character at `index` replaced by the next base64url character. */
const changeAt = (token: string, index: number) => token.slice(0, index) + BASE64URL[(BASE64URL.indexOf(token[index]!) + 1) % 64] + token.slice(index + 1);

/** The changed tokens (as "index: old -> new") that `open` still accepts, when `token` is changed at each of `positions`. */
async function acceptedChanges(state: RequestState, token: string, positions: number[]): Promise<string[]> {
  const accepted: string[] = [];
  for (const i of positions) {
    const changed = changeAt(token, i);
    const opened = await state.open(changed, "tools/call", "d", NOW).then(
      () => true,
      () => false,
    );
    if (opened) accepted.push(`${i} of ${token.length}: ${token[i]} -> ${changed[i]}`);
  }
  return accepted;
}

async function refusal(state: RequestState, token: unknown, method = "tools/call", digest = "d", now = NOW) {
  const error = await mcpError(state.open(token, method, digest, now));
  expect(error.code).toBe(ErrorCode.InvalidParams);
  expect(error.status).toBe(400);
  expect(error.message).toMatch(/^requestState rejected: .*; retry the request without requestState$/);
  return error;
}

describe("RequestState", () => {
  it("opens what it sealed, for the same method and digest", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await state.open(token, "tools/call", "d", NOW)).toEqual(answers);
  });

  it("opens a token sealed by another instance with the same secret", async () => {
    const token = await new RequestState(SECRET, TTL_MS).seal("tools/call", "d", answers, NOW);
    expect(await new RequestState(SECRET, TTL_MS).open(token, "tools/call", "d", NOW)).toEqual(answers);
  });

  it("refuses a token whose payload was changed in any character", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    const positions = [...Array(token.indexOf(".")).keys()];
    expect(await acceptedChanges(state, token, positions)).toEqual([]);
  });

  it("refuses a token whose mac was changed in any character", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    const positions = [...Array(token.length).keys()].filter((i) => i > token.indexOf("."));
    expect(await acceptedChanges(state, token, positions)).toEqual([]);
  });

  it("refuses a forged payload signed with nothing or with the old mac", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    const [, mac] = token.split(".");
    const forged = btoa(JSON.stringify({ method: "tools/call", digest: "d", expiresAt: NOW * 2, answers: { "elicitation-1": { action: "accept" } } }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    expect((await refusal(state, `${forged}.${mac}`)).message).toMatch(/signature does not verify/);
    await refusal(state, `${forged}.`);
    await refusal(state, forged);
  });

  it("refuses tokens that are not of the form payload.mac", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    for (const broken of [`${token}-TAMPERED`, `${token}.extra`, `.${token.split(".")[1]}`, "", "no-dot", `${token.split(".")[0]}.+/+/`, `${token}=`]) {
      await refusal(state, broken);
    }
  });

  it("refuses a token that is not a string", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    for (const token of [undefined, null, 42, { token: "x" }, ["a", "b"]]) {
      expect((await refusal(state, token)).message).toMatch(/must be the string the server sent/);
    }
  });

  it("refuses a token issued for another method or other params", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    expect((await refusal(state, token, "prompts/get", "d")).message).toMatch(/issued for a different request/);
    expect((await refusal(state, token, "tools/call", "other")).message).toMatch(/issued for a different request/);
  });

  it("expires after the configured time, and not before", async () => {
    const state = new RequestState(SECRET, TTL_MS);
    const token = await state.seal("tools/call", "d", answers, NOW);
    expect(await state.open(token, "tools/call", "d", NOW + TTL_MS)).toEqual(answers);
    expect((await refusal(state, token, "tools/call", "d", NOW + TTL_MS + 1)).message).toMatch(/has expired/);
  });

  it("refuses a token sealed by an instance with another secret", async () => {
    const token = await new RequestState("z".repeat(32), TTL_MS).seal("tools/call", "d", answers, NOW);
    expect((await refusal(new RequestState(SECRET, TTL_MS), token)).message).toMatch(/signature does not verify/);
  });

  it("refuses a secret shorter than 32 characters", () => {
    expect(() => new RequestState("x".repeat(31), TTL_MS)).toThrow(RangeError);
    expect(() => new RequestState("", TTL_MS)).toThrow(/at least 32 characters \(got 0\)/);
    expect(() => new RequestState("x".repeat(32), TTL_MS)).not.toThrow();
  });

  it("draws a random key without a secret: it works within one instance, not across two", async () => {
    const one = new RequestState(undefined, TTL_MS);
    const token = await one.seal("tools/call", "d", answers, NOW);
    expect(await one.open(token, "tools/call", "d", NOW)).toEqual(answers);
    await refusal(new RequestState(undefined, TTL_MS), token);
  });
});

describe("paramsDigest", () => {
  const params = { name: "deploy", arguments: { region: "eu", replicas: 3, tags: ["a", "b"], nested: { x: 1, y: [{ p: 1, q: 2 }] } } };

  it("is a base64url SHA-256", async () => {
    expect(await paramsDigest(params)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("ignores _meta, inputResponses and requestState", async () => {
    const digest = await paramsDigest(params);
    expect(await paramsDigest({ ...params, _meta: { progressToken: 1 }, inputResponses: { "sampling-1": {} }, requestState: "abc.def" })).toBe(digest);
  });

  it("does not depend on object key order at any depth", async () => {
    const reordered = { arguments: { nested: { y: [{ q: 2, p: 1 }], x: 1 }, tags: ["a", "b"], replicas: 3, region: "eu" }, name: "deploy" };
    expect(await paramsDigest(reordered)).toBe(await paramsDigest(params));
  });

  it("changes with any salient value, including array order", async () => {
    const digest = await paramsDigest(params);
    expect(await paramsDigest({ ...params, name: "destroy" })).not.toBe(digest);
    expect(await paramsDigest({ ...params, arguments: { ...params.arguments, region: "us" } })).not.toBe(digest);
    expect(await paramsDigest({ ...params, arguments: { ...params.arguments, replicas: "3" } })).not.toBe(digest);
    expect(await paramsDigest({ ...params, arguments: { ...params.arguments, tags: ["b", "a"] } })).not.toBe(digest);
    expect(await paramsDigest({ ...params, extra: true })).not.toBe(digest);
  });
});
