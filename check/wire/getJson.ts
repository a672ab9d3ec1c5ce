/**
 * A JSON document fetched with GET (metadata, a deployment's description): its status, and the
 * object when it answered 200 with one. Another status, or a body that is no JSON object, has no
 * `body`: to a probe, the document is not there. A network error rejects: the caller decides
 * whether an unreachable host is a missing document or a failed probe.
 */
import { type CheckTarget, send } from "./CheckTarget.ts";
import { readCapped } from "./postRpc.ts";

export type Json = Record<string, unknown>;

/** `anonymous`: without the target's own headers (its token), as a client that has not signed in. */
export async function getJson(target: CheckTarget, url: URL, anonymous = false): Promise<{ status: number; body?: Json }> {
  const response = await send(target, url, { anonymous, headers: { accept: "application/json" } });
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status };
  }
  let body: unknown;
  try {
    body = JSON.parse(await readCapped(response));
  } catch {
    return { status: 200 };
  }
  return typeof body === "object" && body !== null && !Array.isArray(body) ? { status: 200, body: body as Json } : { status: 200 };
}
