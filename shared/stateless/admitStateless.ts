/**
 * Whether a 2026-07-28 request may start, checked in the order the spec's errors imply, the same
 * on HTTP and on message streams: its `_meta` and version (`readRequestMeta`), a method of this
 * revision (-32601), on HTTP the headers that mirror the body (`checkRequestHeaders`), and for
 * `subscriptions/listen` what it asks to watch (`planListen`). A refusal answers the request's id.
 */
import { type Checked, passed, refused } from "../errors/Checked.ts";
import { McpError } from "../errors/McpError.ts";
import type { JsonRpcRequest } from "../jsonrpc/messages.ts";
import type { SwitchView } from "../definition/ListKind.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { checkRequestHeaders } from "./checkRequestHeaders.ts";
import { type ListenPlan, planListen } from "./listen.ts";
import { readRequestMeta, type RequestMeta } from "./readRequestMeta.ts";
import { STATELESS_METHODS } from "./statelessExchange.ts";
import { taskRoutingOf } from "../tasks/TaskRouting.ts";

export interface Admitted {
  meta: RequestMeta;
  /** Only for `subscriptions/listen`: what it will watch. */
  plan?: ListenPlan;
}

/** `headers` is undefined on a transport with no header layer (stdio): its metadata is all inline. */
/** `auth`: the request's principal, where tokens are checked (a listen may watch only what it can read). */
export function admitStateless(request: JsonRpcRequest, headers: Headers | undefined, server: CompiledServer, auth?: SwitchView["auth"]): Checked<Admitted> {
  const { id, method } = request;
  const params = request.params ?? {};
  const meta = readRequestMeta(headers, params);
  if (!meta.ok) return refused(meta.error, id);
  if (!STATELESS_METHODS.has(method) && !server.isExtensionMethod(method) && !taskRoutingOf(server)?.methods.has(method)) return refused(McpError.methodNotFound(method), id);
  if (headers) {
    const tool = method === "tools/call" && typeof params.name === "string" ? params.name : undefined;
    const mirrored = checkRequestHeaders(headers, method, params, tool === undefined ? [] : server.paramHeaders(tool));
    if (!mirrored.ok) return refused(mirrored.error, id);
  }
  if (method !== "subscriptions/listen") return passed({ meta: meta.value });
  const plan = planListen(request, server, { auth }, meta.value.clientCapabilities);
  return plan.ok ? passed({ meta: meta.value, plan: plan.value }) : refused(plan.error, id);
}
