/**
 * The execution core: runs one request's handler and answers it, the same way in every era
 * (2025 sessions, 2026-07-28 over HTTP, message streams, task runs).
 *
 * - One `Cancellation` per request (the era's, when it holds one to cancel by). Aborted by
 *   the era, the client cancelled or left, and nothing more is sent for the request, not even an
 *   error (cancellation spec); aborted by the deadline, the request gets the deadline error. Its
 *   `AbortSignal` is made only if the handler (or a write) asks for it.
 * - One deadline, HANDLER_TIMEOUT_MS (`Deadline`: its timer armed only for a handler that is not
 *   quick), answered with one error in every era: -32603 with a
 *   sentence naming the method and the limit, and `data.timeoutMs`. JSON-RPC 2.0's "Internal
 *   error" is the code every revision allows for a failure of the server's own making; the
 *   -32000…-32019 range (whose -32001 the SDKs use for their *own* client-side timeouts) is
 *   legacy that 2026-07-28 asks new implementations not to use, and a server error must not be
 *   mistakable for a local one (2026-07-28 basic, "Error codes"). HTTP status, where an era has
 *   one, is the HTTP layer's to choose.
 * - Exactly one reply, serialised once; a reply over `maxReplyBytes` (UTF-8) is replaced by an error
 *   saying so. Notifications are refused once the request is answered or aborted (progress spec:
 *   they MUST stop).
 * - Errors are mapped once (`toMcpError`: an `McpError` as thrown, anything else masked), then
 *   worded by the era. A handler that threw — answered as -32603, or as a tool error by
 *   `callTool` (`HandlerFailure`) — is logged once here (`handler.error`, with its stack, secrets
 *   redacted) and handed to the definition's `onError`.
 * - Where tracing is on, one span per request (`exchange.trace`, OpenTelemetry MCP conventions),
 *   ended with the reply, the failure or the abort; off, nothing is built.
 *
 * Never rejects: every failure becomes the reply, or a log line when even the reply fails.
 */
import { utf8Length } from "../bytes/utf8Length.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../errors/toMcpError.ts";
import { errorReply, type JsonRpcMessage, type JsonRpcResponse, resultReply } from "../jsonrpc/messages.ts";
import type { Result } from "../definition/Method.ts";
import type { Exchange } from "./Exchange.ts";
import { requestContext } from "./requestContext.ts";
import { Cancellation } from "./Cancellation.ts";
import { Deadline } from "./Deadline.ts";
import { describeFailure, type FailureReport, type HandlerFailure, isControlFlow, REPORT_FAILURE } from "../errors/HandlerFailure.ts";
import { logId } from "../log/logId.ts";
import { redact } from "../log/redact.ts";
import { serverText } from "../log/Logger.ts";
import { CURRENT_SPAN, type RequestSpan } from "../telemetry/Telemetry.ts";
import { isObject } from "../jsonrpc/isObject.ts";

/** The abort reason of a request past its deadline; its error is made only then. */
const DEADLINE = Symbol("past HANDLER_TIMEOUT_MS");

/** The error a request gets when its handler passes HANDLER_TIMEOUT_MS (see the module header). */
export function deadlineError(method: string, timeoutMs: number): McpError {
  return new McpError(500, ErrorCode.InternalError, `Request ${method} did not finish within ${timeoutMs} ms (HANDLER_TIMEOUT_MS) and was aborted`, { timeoutMs });
}

export async function runExchange(exchange: Exchange): Promise<void> {
  const { request, scope, outlet, log } = exchange;
  const { id, method } = request;
  const logged = exchange.loggedId ?? id;
  const cancellation = exchange.cancellation ?? new Cancellation();
  if (cancellation.aborted) {
    outlet.drop();
    return;
  }
  const deadline = new Deadline(cancellation, exchange.timeoutMs, DEADLINE);
  const started = Date.now();
  const span = exchange.trace?.telemetry.request(request, exchange.trace.origin);
  let answered = false;
  let failure: HandlerFailure | undefined;
  const notify = async (message: JsonRpcMessage) => {
    if (cancellation.aborted) throw cancellation.reason;
    if (answered) {
      log.warn("rpc.late-notification", { id: logged, method: (message as { method?: string }).method });
      return;
    }
    await outlet.notify(message, JSON.stringify(message), cancellation.signal);
  };

  let reply: JsonRpcResponse | undefined;
  try {
    const ctx = requestContext(request, scope, cancellation, notify, outlet, exchange.auth);
    (ctx as { [REPORT_FAILURE]?: FailureReport })[REPORT_FAILURE] = (reported) => void (failure ??= reported);
    if (span) (ctx as { [CURRENT_SPAN]?: string })[CURRENT_SPAN] = span.traceparent;
    const result = await raced(exchange.run(ctx), cancellation, deadline);
    reply = resultReply(id, scope.finish ? await scope.finish(result) : result);
  } catch (thrown) {
    const reason = cancellation.aborted ? cancellation.reason : thrown;
    if (reason === DEADLINE) {
      reply = errorReply(id, deadlineError(method, exchange.timeoutMs));
    } else if (cancellation.aborted) {
      // Cancelled, or the client left: nobody waits for an answer.
      log.info("rpc.out", { id: logged, method, ms: Date.now() - started, aborted: describe(reason) });
    } else {
      const recovered = await scope.recover?.(reason).catch(() => undefined);
      if (!recovered && !(reason instanceof McpError) && !isControlFlow(reason)) failure ??= describeFailure(reason);
      reply = recovered ? resultReply(id, recovered) : errorReply(id, reword(exchange, toMcpError(reason)));
    }
  } finally {
    answered = true;
    cancellation.onAbort = undefined;
    deadline.settle();
  }
  if (failure) reportFailure(exchange, failure, span, String(logged));
  if (!reply) {
    span?.end({ aborted: true });
    outlet.drop();
    return;
  }
  try {
    let json = JSON.stringify(reply);
    // Bytes as the wire counts them (UTF-8), computed only when the text could be over.
    const bytes = json.length * 3 <= exchange.maxReplyBytes ? 0 : utf8Length(json);
    if (bytes > exchange.maxReplyBytes) {
      log.error("rpc.reply-too-large", { id: logged, bytes, limit: exchange.maxReplyBytes });
      reply = errorReply(id, new McpError(500, ErrorCode.InternalError, `The response is ${bytes} bytes, over the limit of ${exchange.maxReplyBytes} bytes a response may have here`));
      json = JSON.stringify(reply);
    }
    await outlet.reply(reply, json);
    span?.end({ reply, failure });
    if (log.enabled("info")) log.info("rpc.out", { id: logged, method, ms: Date.now() - started, ...outcomeOf(reply) });
  } catch (error) {
    span?.end({ reply, failure, aborted: true });
    // The reply could not be sent (its stream failed): it is lost to a client that has gone.
    outlet.drop();
    log.error("rpc.reply-failed", { id: logged, method, message: String(error) });
  }
}

/**
 * The handler's result raced against the abort: a cancelled or timed-out request is answered (or
 * dropped) at once, not when a handler that ignores its signal finally returns. A module function,
 * not closures made inside `runExchange`: closures made there share one context, and these would
 * put the exchange and the handler's context in it, kept for as long as any closure of
 * `runExchange` lives (a flooded session's heap grew to hold them; `npm run bench:flood`).
 */
function raced(work: Promise<Result>, cancellation: Cancellation, deadline: Deadline): Promise<Result> {
  return new Promise<Result>((resolve, reject) => {
    cancellation.onAbort = reject;
    work.then(resolve, reject);
    void deadline.armUnlessQuick();
  });
}

/** What the `rpc.out` line says of a reply: its error code, or that a tool answered `isError`. */
function outcomeOf(reply: JsonRpcResponse): Record<string, unknown> {
  if ("error" in reply) return { code: reply.error.code };
  return isObject(reply.result) && reply.result.isError === true ? { isError: true } : {};
}

/** Deepest stack frames kept in a `handler.error` line. */
const MAX_STACK_FRAMES = 20;

/**
 * Logs a handler's failure once (`handler.error`), secrets redacted, and hands it to `onError`.
 * The stack is logged as its lines, each under the logger's string bound, rather than one string the bound would cut.
 */
function reportFailure(exchange: Exchange, failure: HandlerFailure, span: RequestSpan | undefined, requestId: string): void {
  const { request, scope, log } = exchange;
  const secrets = [scope.session?.id, scope.taskId];
  const message = redact(failure.message, secrets);
  const stack = failure.stack === undefined ? undefined : redact(failure.stack, secrets);
  const traceId = span?.traceparent.slice(3, 35);
  // The trace id is the server's own, written whole: it has a handle's shape, which redaction masks.
  log.error("handler.error", { id: requestId, method: request.method, tool: failure.tool, error: failure.name, message, stack: stack?.split("\n").slice(0, MAX_STACK_FRAMES + 1), traceId: traceId && serverText(traceId) });
  const { onError } = exchange;
  if (!onError) return;
  const error = Object.assign(new Error(message), { name: failure.name, stack });
  const info = { method: request.method, tool: failure.tool, requestId, session: scope.session && logId(scope.session.id), traceId };
  try {
    void Promise.resolve(onError(error, info)).catch((hookError) => log.warn("onError.failed", { message: String(hookError) }));
  } catch (hookError) {
    log.warn("onError.failed", { message: String(hookError) });
  }
}

function reword(exchange: Exchange, error: McpError): McpError {
  return exchange.scope.reword ? exchange.scope.reword(error) : error;
}

function describe(reason: unknown): string {
  return typeof reason === "symbol" ? String(reason.description) : String(reason);
}
