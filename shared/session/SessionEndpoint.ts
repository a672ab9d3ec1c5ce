/**
 * A session as its host exposes it, one per session id: the operations the HTTP routes need
 * (open a stream, deliver messages, a Streamable POST, GET and DELETE), each answering with a
 * `Response` or a `ReceiveOutcome` and never throwing, so a failure crosses any boundary — a
 * Durable Object RPC, an in-process call — as its JSON-RPC error. Hosts: `durable/SessionObject.ts`
 * on Workers, `shared/host/LocalSessionHost.ts` in one process (Deno, Node, tests).
 *
 * It owns the create-or-require rules: creating over a live session is 409; any use of an id
 * that never existed, ended, or is not this endpoint's is 404.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { toMcpError } from "../errors/toMcpError.ts";
import { errorResponse } from "../http/errorResponse.ts";
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";
import { StreamableTransport } from "../transport/StreamableTransport.ts";
import { StreamTransport } from "../transport/StreamTransport.ts";
import type { Transport, TransportType } from "../transport/Transport.ts";
import { Session, type SessionDeps } from "./Session.ts";

/** The transports an HTTP host serves; a stored session names one of them. */
const HTTP_TRANSPORTS = [StreamTransport.sse, StreamableTransport.type];

export interface OpenOptions {
  /** Create the session (GET /sse without an id) rather than reopen an existing one. */
  create: boolean;
  /** Raw SSE text sent as the stream's first bytes (the legacy `endpoint` event). */
  first?: string;
}

/** What the legacy transport answers a POST with; replies themselves go out on the stream. */
export interface ReceiveOutcome {
  status: number;
  /** A JSON-RPC error response, as JSON text (text crosses the Durable Object RPC boundary as is). */
  body?: string;
  headers?: Record<string, string>;
}

/** What routes call; a Durable Object stub and a `SessionEndpoint` both have this shape. */
export interface SessionApi {
  open(sessionId: string, options: OpenOptions): Promise<Response>;
  receive(sessionId: string, messages: JsonRpcMessage[]): Promise<ReceiveOutcome>;
  post(sessionId: string, messages: JsonRpcMessage[], create: boolean): Promise<Response>;
  listen(sessionId: string, lastEventId: string | null): Promise<Response>;
  terminate(sessionId: string): Promise<Response>;
}

export class SessionEndpoint implements SessionApi {
  readonly #deps: SessionDeps;
  #session: Session | undefined;
  #loadError: unknown;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
  }

  /** Reads the stored session, if any. Hosts call it once, before anything else. */
  async load(): Promise<void> {
    try {
      this.#session = await Session.load(this.#deps, HTTP_TRANSPORTS);
    } catch (error) {
      // Reported on use, as a JSON-RPC error: the host may not be able to surface it otherwise.
      this.#loadError = error;
    }
  }

  /** False once the session ended (or before one was created): the host may drop this endpoint. */
  get live(): boolean {
    return this.#session !== undefined && !this.#session.ended;
  }

  open(sessionId: string, options: OpenOptions): Promise<Response> {
    return this.#answer(async () => {
      const session = options.create ? await this.#create(sessionId, StreamTransport.sse) : this.#require(sessionId);
      return legacy(session).open(options.first);
    });
  }

  async receive(sessionId: string, messages: JsonRpcMessage[]): Promise<ReceiveOutcome> {
    try {
      this.#throwIfLoadFailed();
      const refused = await legacy(this.#require(sessionId)).deliver(messages);
      if (!refused) return { status: 202 };
      return { status: refused.status, headers: refused.headers, body: JSON.stringify(refused.body) };
    } catch (error) {
      const known = toMcpError(error, this.#deps.logger);
      return { status: known.status, headers: known.headers, body: JSON.stringify({ jsonrpc: "2.0", id: null, error: known.toJsonRpc() }) };
    }
  }

  /** With `create`, the POST carries `initialize`: the session is created and named in `Mcp-Session-Id`. */
  post(sessionId: string, messages: JsonRpcMessage[], create: boolean): Promise<Response> {
    return this.#answer(async () =>
      create
        ? (await this.#create(sessionId, StreamableTransport.type)).transport.post(messages, { "mcp-session-id": sessionId })
        : streamable(this.#require(sessionId)).post(messages),
    );
  }

  listen(sessionId: string, lastEventId: string | null): Promise<Response> {
    return this.#answer(() => streamable(this.#require(sessionId)).listen(lastEventId));
  }

  /** The client ends the session; its storage goes with it. */
  terminate(sessionId: string): Promise<Response> {
    return this.#answer(async () => {
      await this.#require(sessionId).end("client-deleted");
      this.#session = undefined;
      return new Response(null, { status: 204 });
    });
  }

  /** Live figures for tests and the benchmark: queue depth, handlers running, stream state. */
  stats(): Session["queueStats"] | undefined {
    return this.#session?.queueStats;
  }

  /** The host's wakeup (a Durable Object alarm, a timer) arrived. */
  async wakeup(): Promise<void> {
    if (!this.#session) return;
    if ((await this.#session.wakeup()) === "ended") this.#session = undefined;
  }

  async #answer(work: () => Response | Promise<Response>): Promise<Response> {
    try {
      this.#throwIfLoadFailed();
      return await work();
    } catch (error) {
      return errorResponse(error, null, this.#deps.logger);
    }
  }

  async #create<T extends Transport>(sessionId: string, type: TransportType<T>): Promise<Session<T>> {
    if (this.#session) throw new McpError(409, ErrorCode.InvalidRequest, "Session already exists");
    const session = await Session.create(sessionId, type, this.#deps);
    this.#session = session;
    return session;
  }

  #require(sessionId: string): Session {
    const session = this.#session;
    if (!session || session.ended || session.record.id !== sessionId) {
      throw new McpError(404, ErrorCode.InvalidRequest, "Unknown session: it never existed, or it ended; start a new one");
    }
    return session;
  }

  #throwIfLoadFailed(): void {
    if (this.#loadError !== undefined) throw this.#loadError;
  }
}

/** A legacy session's transport; a Streamable HTTP session used on the legacy endpoints is a 400. */
function legacy(session: Session): StreamTransport {
  if (session.transport instanceof StreamTransport) return session.transport;
  throw McpError.invalidRequest("This is a Streamable HTTP session; use GET and POST /mcp", 400);
}

/** A Streamable HTTP session's transport; a legacy session used on /mcp is a 400. */
function streamable(session: Session): StreamableTransport {
  if (session.transport instanceof StreamableTransport) return session.transport;
  throw McpError.invalidRequest("This is a legacy HTTP+SSE session; use GET /sse and POST /message", 400);
}
