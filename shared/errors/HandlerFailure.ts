/**
 * A handler's exception, kept for the operator. Per the MCP tools spec a tool that throws answers
 * its client with a tool result (`isError: true`), so the exception never reaches the execution
 * core that logs; `callTool` reports it here instead, through the request's context, and the core
 * (`runExchange`) logs it once, counts it in the request's span and hands it to `onError`.
 *
 * The report travels on the context under a symbol, not a public member: a handler's context is
 * copied (a home adds its storage) and rebuilt in a remote home, which forwards the report to
 * the request's core by value (`capabilities/homes/durable/homePeer.ts`), so the line is written where the request is.
 */
/** The context member the core sets to receive reports; absent where nobody listens (a unit test's context). */
export const REPORT_FAILURE: unique symbol = Symbol.for("durable-mcp.reportFailure") as never;

/** What is kept of a thrown value: plain data, so it can cross to the request's core. */
export interface HandlerFailure {
  /** The error's class name (`TypeError`), or the type of what was thrown. */
  name: string;
  message: string;
  stack?: string;
  /** The tool whose handler threw, for a tool call. */
  tool?: string;
}

export type FailureReport = (failure: HandlerFailure) => void;

/**
 * Marks an error class that is control flow, not a failure: an ask waiting for the client's answer
 * (`InputRequired`), `ctx.startTask()` ending the request's part of a call. A handler that lets one
 * through has done nothing wrong, so nothing is reported for it.
 */
export const CONTROL_FLOW: unique symbol = Symbol.for("durable-mcp.controlFlow") as never;

/** Whether `thrown` is control flow (`CONTROL_FLOW`), not a failure to report. */
export function isControlFlow(thrown: unknown): boolean {
  return typeof thrown === "object" && thrown !== null && CONTROL_FLOW in thrown;
}

export function describeFailure(thrown: unknown, tool?: string): HandlerFailure {
  const failure: HandlerFailure =
    thrown instanceof Error ? { name: thrown.name, message: thrown.message, stack: thrown.stack } : { name: typeof thrown, message: String(thrown) };
  if (tool !== undefined) failure.tool = tool;
  return failure;
}

/** Tells the request's core that a handler threw `thrown`, answered to the client as a tool error. */
export function reportFailure(ctx: object, thrown: unknown, tool?: string): void {
  if (!isControlFlow(thrown)) forwardFailure(ctx, describeFailure(thrown, tool));
}

/** Hands a failure already described (one a remote home reported) to whoever `ctx` reports failures to. */
export function forwardFailure(ctx: object, failure: HandlerFailure): void {
  (ctx as { [REPORT_FAILURE]?: FailureReport })[REPORT_FAILURE]?.(failure);
}
