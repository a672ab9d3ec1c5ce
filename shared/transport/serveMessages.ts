/**
 * Serves one MCP session over any duplex stream of whole messages: stdio (`serveStdio` adds the
 * newline framing), a WebSocket (the example in docs/runtimes.md), a TCP socket with a framing of
 * yours.
 * This is the way to add a transport without touching the core: adapt your connection to a
 * `MessageStream` and call this.
 *
 * The session is a `Session` with a `SingleStreamTransport.messages(kind)` transport, which behaves
 * like a legacy HTTP+SSE session: one outgoing stream of JSON texts carrying replies,
 * notifications and requests to the client; the client's answers routed back.
 *
 * - A chunk that is not a JSON-RPC message (or batch) gets one error message (id null, or the
 *   request's id when readable: -32700 / -32600) and the session goes on; so does a chunk over
 *   `MAX_BODY_BYTES`, and an `McpError` the adapter passed where it could not frame a message.
 * - A batch that does not fit the session's queue budget gets a -32000 error per its requests'
 *   ids (the 429 of HTTP), as one message: the client retries it later.
 * - When the readable ends, the client is gone: running handlers are aborted (no replies for
 *   them), and the returned promise resolves once the writable is closed. A failed write (the
 *   client closed its end) runs the same teardown, and cancels the readable.
 * - State lives in memory for the life of the connection (`MemoryStorage`): the connection is the session.
 *
 * Every era on one stream (transports spec 2026-07-28, "stdio"): a request whose `_meta` names a
 * protocol version (2026-07-28) is answered without the session (`statelessExchange`: metadata
 * inline, `server/discover`, input asked for with an `InputRequiredResult`, never a request to
 * the client; `subscriptions/listen` tagged by subscription id); everything else goes to the
 * session (`initialize` and the 2024-11-05 … 2025-11-25 revisions). Both kinds share the
 * connection's budget and its registry of ids, so `notifications/cancelled` reaches either.
 * Changes that handlers announce (`ctx.listChanged`, `ctx.resourceUpdated`) reach listeners on
 * this connection.
 *
 * Not here: resumption (no event ids on these wires), process exit codes (an entry's job).
 *
 * @example await serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket), env });
 */
import { userHomeNeedsSignIn } from "../home/deploymentProblems.ts";
import { readConfig } from "../config/readConfig.ts";
import type { Homes } from "../home/Homes.ts";
import { localRuntime } from "../runtime/localRuntime.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../errors/toMcpError.ts";
import { idInUse } from "../exchange/Exchanges.ts";
import { errorReply, isRequest, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from "../jsonrpc/messages.ts";
import { parseMessages } from "../jsonrpc/parseMessages.ts";
import { Logger, stderrSink } from "../log/Logger.ts";
import { logId } from "../log/logId.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { compiledOf, type ServerDefinition } from "../server/ServerDefinition.ts";
import { newSessionId } from "../session/newSessionId.ts";
import { Session } from "../session/Session.ts";
import { admitStateless } from "../stateless/admitStateless.ts";
import { carriesVersionMeta } from "../stateless/classifyEra.ts";
import { listen, OpenListens } from "../stateless/listen.ts";
import { RequestState, requestStateSecret } from "../stateless/RequestState.ts";
import { forThisEra } from "../errors/forThisEra.ts";
import { type StatelessHost, statelessExchange } from "../stateless/statelessExchange.ts";
import { MemoryStorage } from "../storage/MemoryStorage.ts";
import { SingleStreamTransport } from "./SingleStreamTransport.ts";
import { type Network, OVER_HTTP, type Telemetry } from "../telemetry/Telemetry.ts";
import { type Caller, callerOf } from "../auth/Caller.ts";
import { grants, lacking } from "../auth/grants.ts";
import type { Principal } from "../auth/Principal.ts";

/** A client connection that carries whole JSON-RPC messages both ways. */
export interface MessageStream {
  /**
   * The client's messages, one JSON-RPC message or batch per chunk, as text. Where the adapter
   * could not frame a message (a stdio line past the size limit) it passes an `McpError`
   * instead, which is answered like any bad message. Ending it ends the session.
   */
  readable: ReadableStream<string | McpError>;
  /** Our messages, one JSON text per chunk (no newline; framing is the adapter's). Closed when the session ends. */
  writable: WritableStream<string>;
}

export interface ServeMessagesOptions {
  /** What `defineServer` returned. */
  server: ServerDefinition;
  messages: MessageStream;
  /** The transport's name in the session record and the logs. Default: "message". */
  kind?: string;
  /**
   * What the stream runs over, for request spans (`network.transport`, `network.protocol.name`).
   * Default from `kind`: "stdio" a pipe, "websocket" a WebSocket over TCP, anything else HTTP.
   */
  network?: Network;
  /** Variables for `readConfig` (limits, `LOG_LEVEL`) and handlers' `ctx.env`. Default: none. */
  env?: ServerEnv;
  /** Operator logs. Default: JSON lines at `LOG_LEVEL` on stderr (`stderrSink`). */
  logger?: Logger;
  /**
   * Where definitions with a home of their own run. Default, for a server with handle homes (or
   * user homes and a `user`): the host `homes()` brings, in memory for as long as this connection
   * (in a Worker, the home objects bound as `MCP_HOME`). Pass homes of your own to keep them longer.
   */
  homes?: Homes;
  /**
   * The signed-in user every message on this stream comes from, where the stream itself vouches
   * for one (`testClient`'s `user`): handlers see it as `ctx.auth`, `home: "user"` definitions
   * run in its home, the session is bound to it, and a definition's `scopes` are checked against
   * its own. Default: none (stdio has no sign-in, so a server with user homes is refused).
   */
  user?: Principal;
  /** Where request spans go. Default: the definition's `telemetry` option, if any. */
  telemetry?: Telemetry;
}

const encoder = new TextEncoder();

/**
 * Resolves when the client has gone (its stream ended, or our writes failed) and the session is
 * over. @throws the definition's problem, before anything is read, when it cannot be served.
 */
export async function serveMessages(options: ServeMessagesOptions): Promise<void> {
  const server = compiledOf(options.server, "serveMessages").assertValid();
  if (server.homes.user && !options.user) throw userHomeNeedsSignIn("this message stream");
  const caller = options.user && (await callerOf(options.user));
  const env = options.env ?? {};
  const config = readConfig(env);
  const logger = options.logger ?? new Logger(config.logLevel, {}, stderrSink);
  const kind = options.kind ?? "message";
  const network = options.network ?? networkOf(kind);
  // Made here, closed here: the connection's own homes (in memory, unless given) and tasks, which
  // live as long as the connection: a client that goes away cannot poll them any more. One
  // connection is one process's worth of listeners: changes fan out in memory.
  const runtime = localRuntime(server, { env, config, logger, homes: options.homes, telemetry: options.telemetry });
  const { broadcast, homes, telemetry } = runtime;
  // Not the runtime's shares: the connection is its one session, counted by nothing.
  const session = await Session.create(newSessionId(), SingleStreamTransport.messages(kind), {
    server,
    storage: new MemoryStorage(),
    config,
    logger,
    env,
    broadcast,
    homes,
    // Wakeups expire sessions whose stream closed, awaiting a reconnection. This connection is
    // never reopened: when either side ends it, this function ends the session itself.
    scheduleWakeup: async () => {},
    telemetry,
    network,
  }, caller?.owner);
  const { transport } = session;
  const log = logger.child({ session: logId(session.record.id), transport: kind });
  // A listen here also holds a reservation of the connection's budget, which bounds it per connection.
  const stateless: StatelessHost = { runtime: { ...runtime, logger: log }, requestState: new RequestState(requestStateSecret(env), config.requestStateTtlMs), listens: new OpenListens(), network };

  const reader = options.messages.readable.getReader();
  const writer = options.messages.writable.getWriter();
  // Set when the client's side of the output is gone: reading further input would be for nobody.
  let outputGone = false;
  const onWriteFailed = (error: unknown) => {
    if (outputGone) return;
    outputGone = true;
    log.info("output.closed", { message: String(error) });
    // Resolves a pending read with `done`, which ends the loop below.
    void reader.cancel(error).catch(() => {});
  };
  const write = (json: string) => writer.write(json).catch(onWriteFailed);
  const answerError = (error: McpError, id: RequestId | null) => {
    log.warn("rpc.malformed", { code: error.code, message: error.message });
    return write(JSON.stringify(errorReply(id, error)));
  };

  /** A 2026-07-28 request: answered without the session, on the same stream, counted in the same budget. */
  const startStateless = (message: JsonRpcRequest, size: number): McpError | undefined => {
    const admitted = admitStateless(message, undefined, server);
    if (!admitted.ok) return admitted.error;
    const { meta, plan } = admitted.value;
    const full = session.admit([message.id], size);
    if (full) return full.error;
    const outlet = transport.replies.outlet(session.budget.reserve(size));
    if (!plan) {
      void session.exchanges.start(statelessExchange(stateless, { request: message, meta, caller }, outlet));
      return undefined;
    }
    // A listen is not a handler: it holds its id (for notifications/cancelled) but no slot.
    const held = session.exchanges.hold(message.id);
    if (!held) {
      outlet.drop();
      return idInUse(message.id);
    }
    void listen(stateless.runtime, { request: message, plan, outlet, cancel: held.cancellation.signal, done: held.release, owner: caller?.owner }).catch((error) =>
      // The subscription failed before its acknowledgement (listen dropped the outlet): answer it.
      write(JSON.stringify(errorReply(message.id, forThisEra(toMcpError(error, log))))),
    );
    return undefined;
  };

  const pumping = pump(await transport.open(), writer, onWriteFailed);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || outputGone) break;
      if (value instanceof McpError) {
        await answerError(value, null);
        continue;
      }
      if (exceeds(value, config.maxBodyBytes)) {
        await answerError(new McpError(413, ErrorCode.InvalidRequest, `Message exceeds the limit of ${config.maxBodyBytes} bytes (MAX_BODY_BYTES)`), null);
        continue;
      }
      const parsed = parseMessages(value);
      if (!parsed.ok) {
        await answerError(parsed.error, parsed.id ?? null);
        continue;
      }
      const { messages, batch, size } = parsed.value;
      const lacking = caller && lackingScopes(server, messages, caller);
      if (lacking) {
        for (const message of messages) if (isRequest(message)) await write(JSON.stringify(errorReply(message.id, lacking)));
        continue;
      }
      if (messages.some(isStateless)) {
        const [message] = messages;
        if (batch || !isStateless(message!)) {
          await answerError(McpError.invalidRequest("Protocol 2026-07-28 has no JSON-RPC batches; send one message at a time"), null);
        } else {
          const request = message as JsonRpcRequest;
          const refused = startStateless(request, size);
          if (refused) await write(JSON.stringify(errorReply(request.id, refused)));
        }
        continue;
      }
      try {
        // Everything else is the session's (notifications/cancelled included: it reaches either era's requests).
        const refused = await transport.deliver(messages, size, caller?.auth);
        if (refused) await write(JSON.stringify(errorReply(refused.id, refused.error)));
      } catch (error) {
        await answerError(toMcpError(error, log), null);
      }
    }
  } finally {
    reader.releaseLock();
    runtime.close();
    await session.end(outputGone ? "output-closed" : "input-closed");
    await pumping;
    await writer.close().catch(() => {});
    // The last requests' spans leave before the process does.
    await telemetry?.flush();
  }
}

/** Why the user may not send `messages` (a definition's `scopes` it lacks), as HTTP would refuse them with 403; undefined when it may. */
function lackingScopes(server: CompiledServer, messages: readonly JsonRpcMessage[], caller: Caller): McpError | undefined {
  const needed = server.scopesNeeded(messages);
  if (grants(caller.auth, needed)) return undefined;
  return new McpError(403, ErrorCode.InvalidRequest, `The user lacks ${lacking(needed, caller.auth.scopes)} this request needs`);
}

/** A request of protocol 2026-07-28: its `_meta` names a protocol version. */
function isStateless(message: JsonRpcMessage): boolean {
  return isRequest(message) && carriesVersionMeta(message);
}

/** Copies the session's stream (one JSON text per chunk) to the writable; a failed write cancels it. */
async function pump(body: ReadableStream<string>, writer: WritableStreamDefaultWriter<string>, onWriteFailed: (error: unknown) => void): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      await writer.write(value);
    }
  } catch (error) {
    onWriteFailed(error);
    await reader.cancel().catch(() => {});
  }
}

/** Whether the text's UTF-8 form is over `maxBytes`; encoded only when its length leaves it open (1 to 3 bytes per UTF-16 unit). */
function exceeds(text: string, maxBytes: number): boolean {
  if (text.length * 3 <= maxBytes) return false;
  if (text.length > maxBytes) return true;
  return encoder.encode(text).length > maxBytes;
}

/** The network a stream of this `kind` runs over: stdio is a pipe (OpenTelemetry's `network.transport`), the rest TCP. */
function networkOf(kind: string): Network {
  if (kind === "stdio") return { transport: "pipe" };
  return kind === "websocket" ? { transport: "tcp", protocol: "websocket" } : OVER_HTTP;
}
