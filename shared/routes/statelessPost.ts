/**
 * One 2026-07-28 request on Streamable HTTP, answered without a session and without leaving the
 * process that received it (on Workers: no Durable Object hop). The order of checks is the
 * spec's: JSON-RPC shape, then `admitStateless` (`_meta` and version, method, mirrored headers,
 * listen filter); then `subscriptions/listen`, or the request's exchange.
 *
 * A request is answered with JSON (status from the reply: `statusOf`), or with an SSE stream once
 * its handler sends a progress or log notification first; the stream carries no event ids (this
 * revision has no resumption) and closing it cancels the handler. Each request's stream is bounded
 * by a budget of its own (MAX_QUEUE_BYTES / MAX_QUEUE_MESSAGES).
 *
 * Not here: the same revision on stdio and other message streams (`serveMessages`).
 */
import type { Caller } from "../auth/Caller.ts";
import type { ClientAddress } from "../http/clientAddress.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../errors/toMcpError.ts";
import type { Outlet } from "../exchange/Exchange.ts";
import { Cancellation } from "../exchange/Cancellation.ts";
import { runExchange } from "../exchange/runExchange.ts";
import { plainResponse } from "../http/Answer.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { headersOf, statusOf } from "../http/statusOf.ts";
import { isRequest, type JsonRpcMessage, type JsonRpcRequest } from "../jsonrpc/messages.ts";
import { SSE_HEADERS, SSE_KEEPALIVE, sseMessage } from "../outbound/encodeSse.ts";
import type { CloseReason } from "../outbound/FrameStream.ts";
import { LiveStream } from "../outbound/LiveStream.ts";
import { JSON_HEADERS } from "../http/PostAnswer.ts";
import { QueueBudget, type Reservation } from "../outbound/QueueBudget.ts";
import { admitStateless } from "../stateless/admitStateless.ts";
import { listen, type ListenPlan } from "../stateless/listen.ts";
import { forThisEra } from "../errors/forThisEra.ts";
import { type StatelessCall, type StatelessHost, statelessExchange } from "../stateless/statelessExchange.ts";
import type { Runtime } from "../runtime/Runtime.ts";
import { clientKey } from "../shares/clientKey.ts";
import { requestHeaders } from "../http/requestHeaders.ts";

/** Why a request's handler was aborted when the client closed its response stream. */
const CLIENT_CLOSED = Symbol("the client closed the response stream");

/**
 * `parsed`: the body, read and checked as JSON-RPC. `caller`: who sent it, where tokens are
 * checked (its handlers' `ctx.auth`; a `requestState` is sealed to it); `address`: its network
 * address, where the runtime knows it — with the caller, whose fair share a listen or a task
 * counts against (`clientKey`).
 */
export async function statelessPost(host: StatelessHost, request: Request, { messages, batch }: { messages: readonly JsonRpcMessage[]; batch: boolean }, caller?: Caller, address?: ClientAddress): Promise<Response> {
  const { runtime } = host;
  const message = messages[0];
  if (batch || !message) return errorResponse(McpError.invalidRequest("Protocol 2026-07-28 has no JSON-RPC batches; send one message per POST"));
  if (!("method" in message)) {
    return errorResponse(McpError.invalidRequest("Protocol 2026-07-28 servers send no requests, so clients send no responses"), message.id);
  }
  // The revision defines no client notifications over HTTP (closing a stream cancels): accepted, ignored.
  if (!isRequest(message)) return new Response(null, { status: 202 });
  const admitted = admitStateless(message, requestHeaders(request), runtime.server, caller?.auth);
  if (!admitted.ok) return errorResponse(admitted.error, admitted.id);
  const { meta, plan } = admitted.value;
  if (!plan) return answerStateless(host, request, { request: message, meta, caller, address });
  // One slot per open listen, released once however it ends; the host outlives requests, so the count is per process.
  const { listens } = host;
  const slot = listens.acquire(await clientKey(caller, address?.()));
  if (!slot.ok) {
    runtime.logger.warn("listen.limit", { open: listens.count, max: listens.max });
    return errorResponse(slot.error, message.id);
  }
  try {
    return await listenOverSse(message, plan, runtime, slot.value, caller);
  } catch (error) {
    slot.value();
    return errorResponse(forThisEra(toMcpError(error, runtime.logger)), message.id);
  }
}

/**
 * The request's exchange, answered with JSON, or with its SSE stream once anything else goes
 * first. The stream, its budget and the reply's place in it are made only then: the common call
 * is answered with JSON and needs none of them. Also how a 2025 request without a session is
 * answered (`sessionlessPost`).
 */
export function answerStateless(host: StatelessHost, request: Request, call: StatelessCall): Promise<Response> {
  const { runtime } = host;
  // The transport's trace context, linked from the request's span: read only where tracing is on.
  const link = runtime.telemetry && (requestHeaders(request).get("traceparent") ?? undefined);
  // Closing the response stream is this revision's cancellation.
  const cancellation = new Cancellation();
  let sse: { stream: LiveStream<Uint8Array>; reservation: Reservation } | undefined;
  const open = () => {
    if (sse) return sse;
    const budget = QueueBudget.fromConfig(runtime.config);
    // Reserved first, so the reply always fits.
    const reservation = budget.reserve();
    const stream = sseStream(budget, runtime, (reason) => reason === "client-disconnected" && cancellation.abort(CLIENT_CLOSED));
    return (sse = { stream, reservation });
  };
  // The first message for the request decides its answer (transports spec: JSON or an SSE stream,
  // the server's choice): the reply alone is JSON, built here as the final `Response`; anything
  // else first makes the answer the stream.
  // `answer` is cleared once used: the first message decides.
  let answer: ((response: Response) => void) | undefined;
  const answered = new Promise<Response>((resolve) => (answer = resolve));
  const streamed = () => {
    answer?.(new Response(open().stream.connect(), { headers: SSE_HEADERS }));
    answer = undefined;
  };
  const outlet: Outlet = {
    reply(reply, json) {
      if (answer) {
        const extra = headersOf(reply);
        answer(plainResponse({ status: statusOf(reply), headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS, body: json }, runtime.bodylessAnswers));
        answer = undefined;
        return;
      }
      const { stream, reservation } = open();
      stream.reply(json, reservation);
      stream.finish();
    },
    notify(_message, json, signal) {
      streamed();
      return open().stream.notify(json, signal);
    },
    drop() {
      streamed();
      sse?.reservation.release();
      sse?.stream.finish();
    },
  };
  void runExchange(statelessExchange(host, call, outlet, cancellation, link));
  return answered;
}

/** A listen request's long-lived stream; opened once subscribed, so the acknowledgement is its first event. `release` runs when it ends. */
async function listenOverSse(message: JsonRpcRequest, plan: ListenPlan, runtime: Runtime, release: () => void, caller: Caller | undefined): Promise<Response> {
  const budget = QueueBudget.fromConfig(runtime.config);
  const cancel = new AbortController();
  const stream = sseStream(budget, runtime, () => cancel.abort(CLIENT_CLOSED));
  const reservation = budget.reserve();
  const outlet: Outlet = {
    reply(_reply, json) {
      stream.reply(json, reservation);
      stream.finish();
    },
    notify: (_message, json, signal) => stream.notify(json, signal),
    drop() {
      reservation.release();
      stream.finish();
    },
  };
  await listen(runtime, { request: message, plan, outlet, cancel: cancel.signal, done: release, owner: caller?.owner });
  return new Response(stream.connect(), { headers: SSE_HEADERS });
}

/** One POST's SSE response stream: bounded by its own budget, kept alive, and no event ids (no resumption in this revision). */
function sseStream(budget: QueueBudget, runtime: Runtime, onDisconnect: (reason: CloseReason) => void): LiveStream<Uint8Array> {
  return new LiveStream({ budget, frame: sseMessage, keepalive: { intervalMs: runtime.config.keepaliveIntervalMs, frame: SSE_KEEPALIVE }, onDisconnect });
}
