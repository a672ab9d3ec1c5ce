/**
 * One 2026-07-28 request as an exchange for the execution core: its scope says what that revision
 * gives a handler — no session and no storage (state that spans calls travels in arguments), the
 * client as the request's own `_meta` describes it, input asked for with multi round-trip
 * requests (`InputRounds`, answers sealed in `requestState`), changes announced to listeners only
 * — and how a result is finished: `resultType`, server info and caching hints (`decorateResult`),
 * or an `InputRequiredResult` while asks are unanswered. The same on HTTP and on message streams;
 * only the outlet differs.
 *
 * A 2025 request sent without `Mcp-Session-Id` (claude.ai sends none: `sessionlessPost`) runs here
 * too, as that revision words it: no 2026-07-28 decorations, no input rounds (asking the client
 * needs a session there), its errors unchanged, `ping` answered.
 */
import type { ClientAddress } from "../http/clientAddress.ts";
import type { Caller } from "../auth/Caller.ts";
import { resourceTopic } from "../broadcast/Broadcaster.ts";
import { McpError } from "../errors/McpError.ts";
import { CONTROL_FLOW } from "../errors/HandlerFailure.ts";
import type { Cancellation } from "../exchange/Cancellation.ts";
import type { Exchange, Outlet, Scope } from "../exchange/Exchange.ts";
import { type JsonRpcRequest, notification } from "../jsonrpc/messages.ts";
import { LIST_CHANGED_METHOD } from "../definition/ListKind.ts";
import type { Result } from "../definition/Method.ts";
import { decorateResult } from "./decorateResult.ts";
import { isModernVersion } from "../protocol/versions.ts";
import { forThisEra } from "../errors/forThisEra.ts";
import { InputRounds } from "../exchange/InputRounds.ts";
import type { OpenListens } from "./listen.ts";
import type { RequestMeta } from "./readRequestMeta.ts";
import { paramsDigest, type RequestState } from "./RequestState.ts";
import { taskRoutingOf } from "../tasks/TaskRouting.ts";
import { runInHome } from "../home/runInHome.ts";
import { clientKey } from "../shares/clientKey.ts";
import { continuedParams, type Network, OVER_HTTP } from "../telemetry/Telemetry.ts";
import type { Runtime } from "../runtime/Runtime.ts";

/** What `ctx.startTask()` throws in the request, to end the handler there; the exchange then creates the task. */
class TaskStarted extends Error {
  override readonly name = "TaskStarted";
  readonly [CONTROL_FLOW] = true;
}

/** What the 2026-07-28 path needs, built once per environment: the runtime, and what this path keeps beside it. */
export interface StatelessHost {
  readonly runtime: Runtime;
  /** Seals and opens the `requestState` of input rounds. */
  readonly requestState: RequestState;
  /** The listen requests open through this host (MAX_OPEN_LISTENS): one count per isolate or process. */
  readonly listens: OpenListens;
  /** How requests arrive, for their spans; default `OVER_HTTP`. */
  readonly network?: Network;
}

/**
 * One request of this revision, as admitted: the message, its metadata, and who sent it.
 * `caller`: where tokens are checked, who sent it: its handler's `ctx.auth`, and whose a
 * `requestState` it seals or opens may be; with `address`, whose fair share a task it starts holds.
 */
export interface StatelessCall {
  readonly request: JsonRpcRequest;
  readonly meta: RequestMeta;
  readonly caller?: Caller;
  readonly address?: ClientAddress;
}

/** The methods of the features (tools, prompts, resources, completion): every revision's, none needs a session. */
const FEATURE_METHODS = ["tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read", "completion/complete"];

/** The client requests of this revision (schema `ClientRequest`); the rest, `initialize` and `ping` included, are -32601. */
export const STATELESS_METHODS: ReadonlySet<string> = new Set(["server/discover", "subscriptions/listen", ...FEATURE_METHODS]);

/** The requests a 2025 client may send without a session: what needs none (no subscription, no log level, no task). */
export const SESSIONLESS_METHODS: ReadonlySet<string> = new Set(["ping", ...FEATURE_METHODS]);

/** The only requests that may be answered with an `InputRequiredResult` ("Server Requirements"). */
const MAY_ASK = new Set(["tools/call", "prompts/get", "resources/read"]);

/**
 * The exchange of one request of this revision other than `subscriptions/listen`, for the
 * execution core (`runExchange`), answered on `outlet`; `cancellation` cancels it. `link`: the
 * transport's trace context (an HTTP `traceparent` header), linked from the request's span.
 */
export function statelessExchange(host: StatelessHost, call: StatelessCall, outlet: Outlet, cancellation?: Cancellation, link?: string): Exchange {
  const { runtime } = host;
  const { server, config } = runtime;
  const { request, meta, caller, address } = call;
  const { method } = request;
  const params = request.params ?? {};
  const modern = isModernVersion(meta.protocolVersion);
  const mayAsk = modern && MAY_ASK.has(method);
  // Hashed only when a requestState is opened or sealed: most calls never ask the client. The
  // caller's digest is part of what is sealed, so another user's retry cannot open the state.
  let digested: Promise<string> | undefined;
  const digest = () => (digested ??= paramsDigest(params).then((d) => (caller ? `${d}.${caller.owner}` : d)));
  let rounds: InputRounds | undefined;
  // A startsItself tool's call that may become a task: ctx.startTask() ends the handler here.
  let startable = false;
  let started = false;
  const inputRequired = async (asked: InputRounds): Promise<Result> => ({
    resultType: "input_required",
    inputRequests: asked.pending,
    requestState: await host.requestState.seal(method, await digest(), asked.used),
    _meta: decorateResult(method, {}, server)._meta,
  });
  const scope: Scope = {
    env: runtime.env,
    client: { protocolVersion: meta.protocolVersion, info: meta.clientInfo, capabilities: meta.clientCapabilities },
    logLevel: () => meta.logLevel,
    ask: (askMethod, askParams, key) => {
      if (!modern) return Promise.reject(McpError.invalidRequest(`${askMethod} needs a session: this request came without the Mcp-Session-Id that initialize returned`));
      if (!mayAsk || !rounds) return Promise.reject(new Error(`${method} cannot ask the client for input; only tools/call, prompts/get and resources/read can`));
      return rounds.ask(askMethod, askParams, key);
    },
    resourceUpdated: (uri) => runtime.broadcast.publish(resourceTopic(uri), notification("notifications/resources/updated", { uri })),
    listChanged: (feature) => runtime.broadcast.publish(feature, notification(LIST_CHANGED_METHOD[feature])),
    finish: (result) => (!modern ? result : rounds?.needsInput ? inputRequired(rounds) : decorateResult(method, result, server)),
    // A read or prompt handler's ask rejects it with InputRequired; the asks stand.
    recover: async (error) => (rounds?.needsInput && !(error instanceof McpError) ? inputRequired(rounds) : undefined),
    reword: modern ? forThisEra : (error) => error,
    startTask: async () => {
      if (!startable) return;
      started = true;
      throw new TaskStarted("ctx.startTask(): the call goes on as a task");
    },
  };
  const { telemetry } = runtime;
  return {
    request,
    auth: caller?.auth,
    scope,
    outlet,
    cancellation,
    onError: server.onError,
    trace: telemetry && { telemetry, origin: { ...(host.network ?? OVER_HTTP), protocolVersion: meta.protocolVersion, clientAddress: address?.(), link } },
    log: runtime.logger,
    timeoutMs: config.handlerTimeoutMs,
    maxReplyBytes: config.maxQueueBytes,
    run: async (ctx) => {
      const sealed = mayAsk && params.requestState !== undefined ? await host.requestState.open(params.requestState, method, await digest()) : {};
      rounds = new InputRounds(sealed, mayAsk ? params.inputResponses : undefined, meta.clientCapabilities);
      if (!modern && !SESSIONLESS_METHODS.has(method) && !server.isExtensionMethod(method)) {
        throw McpError.invalidRequest(`${method} needs a session: send the Mcp-Session-Id that initialize returned`);
      }
      if (!modern && method === "ping") return {};
      if (method === "server/discover") return server.discover(runtime.tasks !== undefined);
      // Without a task host the extension is not advertised, so its methods are unknown here (-32601).
      const tasks = taskRoutingOf(server);
      if (tasks?.methods.has(method) && runtime.tasks) return tasks.answer(method, params, meta.clientCapabilities, runtime.tasks, caller?.owner);
      const handler = STATELESS_METHODS.has(method) || server.isExtensionMethod(method) ? server.method(method) : undefined;
      if (!handler) throw McpError.methodNotFound(method);
      const task = method === "tools/call" ? tasks?.plan(server, params, meta.clientCapabilities, runtime.tasks) : undefined;
      const route = { homes: runtime.homes, owner: caller?.owner, client: () => clientKey(caller, address?.()) };
      if (!task || !tasks) return runInHome(server, method, params, ctx, handler, route);
      // The task's runs continue this request's trace under its span (its stored `_meta.traceparent`).
      if (!task.startsItself) return tasks.start(runtime.tasks!, continuedParams(params, ctx), scope.client, caller, {}, await clientKey(caller, address?.()));
      // Runs until it asks (an InputRequiredResult, as any call) or starts its task with the answers so far.
      startable = true;
      const result = await runInHome(server, method, params, ctx, handler, route);
      return started && !rounds.needsInput ? tasks.start(runtime.tasks!, continuedParams(params, ctx), scope.client, caller, rounds.used, await clientKey(caller, address?.())) : result;
    },
  };
}
