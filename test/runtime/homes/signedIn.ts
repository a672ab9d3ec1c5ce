/**
 * Steps of the home runtime tests: the shared test issuer (`testIssuer`), its keys handed to the
 * Worker, and the three eras spoken with a user's token — a 2026-07-28 request, a Streamable HTTP
 * session, an HTTP+SSE session — plus the user's home object, found as the Worker finds it.
 */
import { env, SELF } from "cloudflare:test";
import { ownerOf } from "../../../shared/auth/Caller.ts";
import { handleHomeName, homeName } from "../../../shared/home/Homes.ts";
import { SseReader } from "../../support/SseReader.ts";
import { call, initialize } from "../../support/messages.ts";
import { type TestIssuer, testIssuer } from "../../support/testIssuer.ts";
import { BASE, postModern } from "../helpers.ts";
import { ISSUER, RESOURCE_ORIGIN, useKeys } from "./homeWorker.ts";

export { BASE };
type Json = Record<string, any>;

let issuer: TestIssuer | undefined;

/** Makes the issuer's key pair and hands its public half to the Worker; once per file. */
export async function startIssuer(): Promise<void> {
  issuer = await testIssuer(ISSUER);
  useKeys(JSON.parse(issuer.jwks));
}

/** An access token for `subject`, for the resource at `path` (`/mcp`, or `/sse` for the legacy endpoints). */
export function tokenFor(subject: string, path = "/mcp"): Promise<string> {
  if (!issuer) throw new Error("startIssuer() first");
  return issuer.sign({ sub: subject, aud: `${RESOURCE_ORIGIN}${path}` });
}

let nextId = 1;

/** One 2026-07-28 request as `subject`: the whole response. */
export async function modernFetch(subject: string, method: string, params: Json, { capabilities = {} }: { capabilities?: Json } = {}): Promise<Response> {
  const name = method === "tools/call" ? params.name : (params.taskId ?? params.uri ?? params.name);
  const headers: Record<string, string> = { authorization: `Bearer ${await tokenFor(subject)}`, ...(name === undefined ? {} : { "mcp-name": String(name) }) };
  return postModern(method, params, { headers, capabilities });
}

/** One 2026-07-28 request as `subject`, answered with JSON: its `result` (fails on an error). */
export async function modern(subject: string, method: string, params: Json, options?: { capabilities?: Json }): Promise<Json> {
  const answer = await (await modernFetch(subject, method, params, options)).json<Json>();
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

/** A 2025-11-25 Streamable HTTP session of `subject`'s: `call` answers a tool call's result. */
export async function streamable(subject: string) {
  const token = await tokenFor(subject);
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    SELF.fetch(`${BASE}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
  const opened = await post(initialize(0, "2025-11-25"));
  if (opened.status !== 200) throw new Error(`initialize answered ${opened.status}`);
  await opened.json();
  const headers = { "mcp-session-id": opened.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-11-25" };
  return {
    sessionId: headers["mcp-session-id"],
    /** Posts any message in the session: the whole response. */
    post: (body: unknown) => post(body, headers),
    async call(name: string, args: Json): Promise<Json> {
      const answer = await (await post(call(nextId++, name, args), headers)).json<Json>();
      if (answer.error) throw new Error(`${name}: ${JSON.stringify(answer.error)}`);
      return answer.result;
    },
  };
}

/** A 2024-11-05 HTTP+SSE session of `subject`'s (its token for `/sse`): `call` posts and reads the reply off the stream. */
export async function legacy(subject: string) {
  const token = await tokenFor(subject, "/sse");
  const response = await SELF.fetch(`${BASE}/sse`, { headers: { accept: "text/event-stream", authorization: `Bearer ${token}` } });
  if (response.status !== 200 || !response.body) throw new Error(`GET /sse answered ${response.status}`);
  const reader = new SseReader(response.body);
  const endpoint = (await reader.next()).data;
  const post = (body: unknown) =>
    SELF.fetch(new URL(endpoint, BASE), { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  await post(initialize(0));
  await reader.next();
  return {
    async call(name: string, args: Json): Promise<Json> {
      const id = nextId++;
      const accepted = await post(call(id, name, args));
      if (accepted.status !== 202) throw new Error(`POST /message answered ${accepted.status}`);
      for (;;) {
        const message = JSON.parse((await reader.next(10_000)).data);
        if (message.id !== id) continue;
        if (message.error) throw new Error(`${name}: ${JSON.stringify(message.error)}`);
        return message.result;
      }
    },
    close: () => response.body!.cancel().catch(() => {}),
  };
}

/** The home object of `subject` (issuer `ISSUER`): the same name the Worker gives it. */
export async function userHome(subject: string) {
  const name = homeName({ kind: "user", owner: await ownerOf({ issuer: ISSUER, subject }) });
  return env.MCP_HOME!.get(env.MCP_HOME!.idFromName(name));
}

/** The home object of a handle. */
export function handleHome(handle: string) {
  return env.MCP_HOME!.get(env.MCP_HOME!.idFromName(handleHomeName(handle)));
}

export const text = (result: Json): string => result.content[0].text;
