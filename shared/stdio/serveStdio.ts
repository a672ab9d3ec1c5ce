/**
 * Serves one MCP session over a pair of byte streams: the stdio transport (transports spec,
 * "stdio"), for desktop clients that start the server as a subprocess. Input is newline-delimited
 * JSON-RPC; each message is fed to a `Session` of transport `"stdio"`, which behaves like a legacy
 * HTTP+SSE session (one stream carrying replies, notifications and requests to the client; the
 * client's answers routed back; `notifications/cancelled`) and writes one line of JSON per
 * message. Runtime-agnostic: the caller brings the streams (`deno/stdio.ts` brings the process's).
 *
 * - Output carries MCP messages only. Operator logs are JSON lines on `console.error` (stderr);
 *   the host must keep other writers (a tool's `console.log`) off stdout.
 * - A line that is not a JSON-RPC message gets one error line (id null, or the request's id when
 *   readable: -32700 / -32600) and the session goes on. A line over `MAX_BODY_BYTES` is skipped
 *   while it is read, never buffered, and answered -32600.
 * - When the input ends, the session ends as for a legacy client that disconnects: running
 *   handlers are aborted (no replies for them), and the returned promise resolves once the output
 *   is closed. When the output fails (the client closed our stdout), the same teardown runs.
 * - State lives in memory for the life of the process (`MemoryStorage`): the process is the session.
 *
 * Not here: the 2026-07-28 stateless era (a `server/discover` request is answered -32601, as on
 * any 2025 session), resumption (a pipe cannot be reopened), process exit codes (the entry's job).
 *
 * @example await serveStdio({ server, input: Deno.stdin.readable, output: Deno.stdout.writable, env: Deno.env.toObject() });
 */
import { readConfig } from "../config/readConfig.ts";
import type { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../http/errorResponse.ts";
import type { RequestId } from "../jsonrpc/messages.ts";
import { parseMessages } from "../jsonrpc/parseMessages.ts";
import { Logger, stderrSink } from "../log/Logger.ts";
import type { McpServer } from "../server/McpServer.ts";
import { MemoryStorage } from "../session/MemoryStorage.ts";
import { newSessionId } from "../session/newSessionId.ts";
import { Session } from "../session/Session.ts";
import { encodeLine } from "./encodeLine.ts";
import { splitLines } from "./splitLines.ts";

export interface StdioOptions {
  server: McpServer;
  /** The client's messages: the process's stdin. */
  input: ReadableStream<Uint8Array>;
  /** Where MCP messages go, and nothing else: the process's stdout. Closed when the session ends. */
  output: WritableStream<Uint8Array>;
  /** Variables for `readConfig` (limits, `LOG_LEVEL`) and handlers' `ctx.env`. Default: none. */
  env?: Readonly<Record<string, unknown>>;
  /** Operator logs. Default: JSON lines at `LOG_LEVEL` on stderr (`stderrSink`). */
  logger?: Logger;
}

const encoder = new TextEncoder();

/** Resolves when the input has ended (or the output failed) and the session is over. */
export async function serveStdio(options: StdioOptions): Promise<void> {
  const env = options.env ?? {};
  const config = readConfig(env);
  const logger = options.logger ?? new Logger(config.logLevel, {}, stderrSink);
  const session = await Session.create(newSessionId(), "stdio", {
    server: options.server,
    storage: new MemoryStorage(),
    config,
    logger,
    env,
    // Wakeups expire sessions whose stream closed, awaiting a reconnection. A pipe is never
    // reopened: when either side closes, this function ends the session itself.
    scheduleWakeup: async () => {},
  });
  const log = logger.child({ session: session.record.id });

  // Aborted when the output is gone: reading further input would be for nobody.
  const outputGone = new AbortController();
  const writer = options.output.getWriter();
  const writeLine = (json: string) =>
    writer.write(encoder.encode(encodeLine(json))).catch((error: unknown) => {
      log.info("stdio.output-closed", { message: String(error) });
      outputGone.abort();
    });
  const answerError = (error: McpError, id: RequestId | null) => {
    log.warn("rpc.malformed", { code: error.code, message: error.message });
    return writeLine(JSON.stringify({ jsonrpc: "2.0", id, error: error.toJsonRpc() }));
  };
  const pumping = pump(session.attach().body!, writer, outputGone, log);

  try {
    for await (const line of splitLines(options.input, config.maxBodyBytes, outputGone.signal)) {
      if (!line.ok) {
        await answerError(line.error, null);
        continue;
      }
      const parsed = parseMessages(line.text);
      if (!parsed.ok) {
        await answerError(parsed.error, parsed.id);
        continue;
      }
      try {
        const outcome = await session.receive(parsed.messages);
        // A refusal (429 when the queue is full) names the request; replies come on the stream.
        if (outcome.body !== undefined) await writeLine(outcome.body);
      } catch (error) {
        await answerError(toMcpError(error, log), null);
      }
    }
  } finally {
    await session.end(outputGone.signal.aborted ? "stdout-closed" : "stdin-closed");
    await pumping;
    await writer.close().catch(() => {});
  }
}

/** Copies the session's stream to the output; a failed write cancels the stream (the client left). */
async function pump(body: ReadableStream<Uint8Array>, writer: WritableStreamDefaultWriter<Uint8Array>, outputGone: AbortController, log: Logger): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      await writer.write(value);
    }
  } catch (error) {
    log.info("stdio.output-closed", { message: String(error) });
    outputGone.abort();
    await reader.cancel().catch(() => {});
  }
}
