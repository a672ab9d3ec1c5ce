/**
 * Serves one MCP session over a pair of byte streams: the stdio transport (transports spec,
 * "stdio"), for desktop clients that start the server as a subprocess. This module is only the
 * framing: input is split into lines (`splitLines`, bounded while reading), output gets one line
 * of JSON per message (`encodeLine`). The session and every answer come from `serveMessages`,
 * with the transport kind "stdio". Runtime-agnostic: the caller brings the streams
 * (`deno/stdio.ts` brings the process's).
 *
 * - Output carries MCP messages only. Operator logs are JSON lines on `console.error` (stderr),
 *   and while serving, `console.log`, `console.info` and `console.debug` write there too
 *   (`consoleToStderr`), so a tool's stray `console.log` cannot corrupt stdout on Node either.
 * - A line over `MAX_BODY_BYTES` is skipped while it is read, never buffered, and answered -32600.
 * - When stdin ends, running handlers are aborted (the spec's shutdown: the client closes our
 *   input, then waits for us to exit) and the returned promise resolves once stdout is closed.
 *
 * @example await serveStdio({ server, input: Deno.stdin.readable, output: Deno.stdout.writable, env: Deno.env.toObject() });
 */
import { readConfig } from "../config/readConfig.ts";
import type { McpError } from "../errors/McpError.ts";
import type { Logger } from "../log/Logger.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";
import { type MessageStream, serveMessages } from "../transport/serveMessages.ts";
import { consoleToStderr } from "./consoleToStderr.ts";
import { encodeLine } from "./encodeLine.ts";
import { splitLines } from "./splitLines.ts";
import type { Telemetry } from "../telemetry/Telemetry.ts";

export interface StdioOptions {
  server: ServerDefinition;
  /** The client's messages: the process's stdin. */
  input: ReadableStream<Uint8Array>;
  /** Where MCP messages go, and nothing else: the process's stdout. Closed when the session ends. */
  output: WritableStream<Uint8Array>;
  /** Variables for `readConfig` (limits, `LOG_LEVEL`) and handlers' `ctx.env`. Default: none. */
  env?: ServerEnv;
  /** Operator logs. Default: JSON lines at `LOG_LEVEL` on stderr (`stderrSink`). */
  logger?: Logger;
  /** Where request spans go. Default: the definition's `telemetry` option, if any. */
  telemetry?: Telemetry;
}

/** Resolves when stdin has ended (or stdout failed) and the session is over. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const maxLineBytes = readConfig(options.env ?? {}).maxBodyBytes;
  const restoreConsole = consoleToStderr();
  try {
    await serveMessages({
      server: options.server,
      kind: "stdio",
      messages: lineMessages(options.input, options.output, maxLineBytes),
      env: options.env,
      logger: options.logger,
      telemetry: options.telemetry,
    });
  } finally {
    restoreConsole();
  }
}

const encoder = new TextEncoder();

/** Newline-delimited JSON on a pair of byte streams, as a `MessageStream`. */
export function lineMessages(input: ReadableStream<Uint8Array>, output: WritableStream<Uint8Array>, maxLineBytes: number): MessageStream {
  const stop = new AbortController();
  const lines = splitLines(input, maxLineBytes, stop.signal);
  const readable = new ReadableStream<string | McpError>(
    {
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value.ok ? next.value.value : next.value.error);
      },
      cancel: (reason) => stop.abort(reason),
    },
    { highWaterMark: 0 },
  );
  const out = output.getWriter();
  const writable = new WritableStream<string>({
    write: (json) => out.write(encoder.encode(encodeLine(json))),
    close: () => out.close(),
    abort: (reason) => out.abort(reason),
  });
  return { readable, writable };
}
