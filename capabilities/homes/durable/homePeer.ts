/**
 * A request's context carried to a home in another place (on Workers, the home's Durable
 * Object). What can travel by value does — the method and params, the request id, the client,
 * the principal, the task, the session's switches — and the rest stays with the request: one
 * `Peer` function the home calls back for progress, logs, asks to the client, switches, changes
 * and `ctx.startTask()`, so the era's own rules for each (a progress token, a log threshold, an
 * input round, a session's stream) apply exactly as for a handler that runs in the request.
 *
 * The home rebuilds a `RequestContext` from the two (`contextOf`); the request's cancellation
 * reaches it separately (the host's `abort`), since a signal does not cross.
 */
import type { Principal } from "../../../shared/auth/Principal.ts";
import type { RequestId } from "../../../shared/jsonrpc/messages.ts";
import { type ListKind, toggleKey } from "../../../shared/definition/ListKind.ts";
import type { ClientView, RequestContext, ServerEnv } from "../../../shared/definition/RequestContext.ts";
import type { CompiledServer } from "../../../shared/server/CompiledServer.ts";
import { randomHex } from "../../../shared/bytes/randomHex.ts";
import type { HomeCall } from "../../../shared/home/Homes.ts";
import { forwardFailure, type HandlerFailure, REPORT_FAILURE } from "../../../shared/errors/HandlerFailure.ts";

/** The context's functions a home calls back by the same name, with the same arguments. */
const FORWARDED = ["progress", "log", "sample", "elicit", "listRoots", "closeStream", "startTask", "resourceUpdated", "listChanged"] as const;
type Forwarded = (typeof FORWARDED)[number];

/** What the home may ask of the request's context: a forwarded function, or a switch of the request's session. */
export type PeerOp = Forwarded | "setEnabled" | "reportFailure";

/** The request's context, as one function a remote home calls back (RPC carries functions, not objects of them). */
export type Peer = (op: PeerOp, args: unknown[]) => Promise<unknown>;

/** A request to a home, by value. */
export interface RemoteCall extends HomeCall {
  /** Names this run in its home, for the request's cancellation to find it. */
  callId: string;
  requestId: RequestId;
  client: ClientView;
  auth?: Principal;
  taskId?: string;
  /** The request's session: its id, and the state of each definition switchable in it. */
  session?: { id: string; switches: [ListKind, string, boolean][] };
}

const SENT = Symbol("failure report sent");

/** Resolves once a failure the handler reported (if any) has reached the request's core. */
export function failureSent(ctx: RequestContext): Promise<unknown> | undefined {
  return (ctx as unknown as { [SENT]?: Promise<unknown> })[SENT];
}

/** The call and its peer, from the request's own context. */
export function toRemote(call: HomeCall, ctx: RequestContext, server: CompiledServer): { remote: RemoteCall; peer: Peer } {
  const remote: RemoteCall = { ...call, callId: randomHex(8), requestId: ctx.requestId, client: ctx.client };
  if (ctx.auth) remote.auth = ctx.auth;
  if (ctx.taskId !== undefined) remote.taskId = ctx.taskId;
  const session = ctx.session;
  if (session) remote.session = { id: session.id, switches: server.switches.map(([kind, id]) => [kind, id, session.isEnabled(kind, id)]) };
  const peer: Peer = async (op, args) => {
    if (op === "reportFailure") return forwardFailure(ctx, args[0] as HandlerFailure);
    if (op === "setEnabled") {
      if (!session) throw new TypeError("This request has no session: nothing to switch for it");
      return session.setEnabled(...(args as [ListKind, string, boolean]));
    }
    if (!(FORWARDED as readonly string[]).includes(op)) throw new TypeError(`A home asked its request for ${JSON.stringify(op)}, which it does not offer`);
    return Reflect.apply(ctx[op], ctx, args);
  };
  return { remote, peer };
}

/** The handler's context in the home: the call's values, `env` and `signal` the home's own, everything else through `peer`. Storage is the host's to add. */
export function contextOf(call: RemoteCall, peer: Peer, env: ServerEnv, signal: AbortSignal): RequestContext {
  const ask = (op: PeerOp) => (...args: unknown[]) => peer(op, args) as Promise<never>;
  const context: Record<string, unknown> = {
    signal,
    requestId: call.requestId,
    client: call.client,
    env,
    auth: call.auth,
    taskId: call.taskId,
  };
  for (const op of FORWARDED) context[op] = ask(op);
  // Fire and forget, as locally: closing a stream answers nothing.
  context.closeStream = () => void peer("closeStream", []).catch(() => {});
  // A handler's failure is logged by the request's core, where the request is (`HandlerFailure`);
  // the home waits for the report (`failureSent`) before it answers, so the core has it first.
  context[REPORT_FAILURE as never] = (failure: HandlerFailure) => void (context[SENT as never] = peer("reportFailure", [failure]).catch(() => {}));
  if (call.session) {
    const states = new Map(call.session.switches.map(([kind, id, on]) => [toggleKey(kind, id), on]));
    context.session = {
      id: call.session.id,
      isEnabled: (kind: ListKind, id: string) => states.get(toggleKey(kind, id)) ?? true,
      setEnabled: async (kind: ListKind, id: string, enabled: boolean) => {
        await peer("setEnabled", [kind, id, enabled]);
        states.set(toggleKey(kind, id), enabled);
      },
    };
  }
  return context as unknown as RequestContext;
}
