/**
 * Hosts the session of one id, whatever holds it (a Durable Object on Workers, `LocalSessions`
 * in one process): loads it from storage before first use, applies each `SessionOperation` to
 * it, and answers with an `Answer` (a streaming `Response`, or plain data that crosses RPC by
 * value) that never throws across the boundary — a failure is its JSON-RPC error, through the
 * HTTP error boundary.
 *
 * It owns the create-or-require rules: creating over a live session is 409; any use of an id
 * that never existed, ended, or is not this host's is 404, and so is any use by a principal other
 * than the one that created it (the same answer: a session's existence is not revealed); a legacy session used on /mcp (or the
 * reverse) is 400; a stream opened where one is open replaces it. A load that fails (storage
 * unavailable for a moment) is tried again on the next operation, rather than leaving the host
 * broken until it is evicted. A relayed stream (a Durable Object's socket) that outlived the
 * host's memory is read again through `reattach`.
 */
import { type Checked, passed, refused } from "../errors/Checked.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import type { Answer } from "../http/Answer.ts";
import { errorAnswer } from "../http/errorResponse.ts";
import { encodeSse, SSE_HEADERS } from "../outbound/encodeSse.ts";
import { pushedDeadline, Session, type SessionDeps } from "../session/Session.ts";
import type { Transport, TransportType } from "../session/Transport.ts";
import type { SessionRecord } from "../session/SessionRecord.ts";
import { StreamableHttpTransport } from "../transport/StreamableHttpTransport.ts";
import { SingleStreamTransport } from "../transport/SingleStreamTransport.ts";
import type { SessionOperation } from "./SessionOperation.ts";

/** The transports an HTTP host serves; a stored session names one of them. */
const HTTP_TRANSPORTS: readonly TransportType[] = [SingleStreamTransport.sse, StreamableHttpTransport.type];

const encoder = new TextEncoder();

export class SessionHost {
  readonly #deps: SessionDeps;
  #session: Session | undefined;
  #loaded = false;
  #loading: Promise<void> | undefined;

  constructor(deps: SessionDeps) {
    this.#deps = deps;
  }

  /** False once the session ended (or before one exists): the host may drop this object. */
  get live(): boolean {
    return this.#session !== undefined && !this.#session.ended;
  }

  /** The live session's record (its share key and deadline, for a host that counts it again after a restart). */
  get record(): Readonly<SessionRecord> | undefined {
    return this.#session?.ended === false ? this.#session.record : undefined;
  }

  /** Live figures for tests and the benchmark: queue depth, handlers running, stream state. */
  get stats(): Session["queueStats"] | undefined {
    return this.#session?.queueStats;
  }

  /** Reads the stored session, if any; shared by concurrent callers, and tried again after a failure. */
  ready(): Promise<void> {
    if (this.#loaded) return Promise.resolve();
    this.#loading ??= Session.load(this.#deps, HTTP_TRANSPORTS)
      .then((session) => {
        this.#session = session;
        this.#loaded = true;
      })
      .finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  async apply(operation: SessionOperation): Promise<Answer> {
    try {
      await this.ready();
      return await this.#apply(operation);
    } catch (error) {
      return errorAnswer(error, null, this.#deps.logger);
    }
  }

  /** The host's wakeup (a Durable Object alarm, a timer) arrived. */
  async wakeup(): Promise<void> {
    await this.ready();
    if (!this.#session) return;
    if ((await this.#session.wakeup()) === "ended") this.#session = undefined;
  }

  /**
   * The stream a relayed `stream` operation reads: the one its Last-Event-ID names, else the
   * standalone stream. Undefined when the session is not a Streamable HTTP one (the operation
   * then fails anyway).
   */
  streamOf(operation: Extract<SessionOperation, { kind: "stream" }>): string | undefined {
    if (operation.lastEventId !== null) return operation.lastEventId.split(".")[0];
    const transport = this.#session?.transport;
    return transport instanceof StreamableHttpTransport ? transport.standaloneId : undefined;
  }

  /**
   * A relayed connection that outlived the host's memory (see `Relayed`): the body it reads
   * from now on, or undefined when its session is gone (the relay then ends).
   */
  async reattach(relayed: Relayed): Promise<ReadableStream<Uint8Array> | undefined> {
    await this.ready();
    const transport = this.#session?.ended === false ? this.#session.transport : undefined;
    if (relayed.kind === "legacy") return transport instanceof SingleStreamTransport ? (transport.open(undefined, true) as Promise<ReadableStream<Uint8Array>>) : undefined;
    return transport instanceof StreamableHttpTransport ? (transport.reattach(relayed.streamId).body ?? undefined) : undefined;
  }

  async #apply(operation: SessionOperation): Promise<Answer> {
    const { sessionId } = operation;
    switch (operation.kind) {
      case "open": {
        const transport = operation.create ? await this.#create(sessionId, SingleStreamTransport.sse, operation.owner, operation.shareKey) : this.#find(sessionId, "legacy", operation.owner);
        if (!transport.ok) return errorAnswer(transport.error);
        const body = await transport.value.open(encoder.encode(encodeSse({ event: "endpoint", data: operation.endpoint })), operation.relayed);
        return new Response(body, { headers: SSE_HEADERS });
      }
      case "deliver": {
        const transport = this.#find(sessionId, "legacy", operation.owner);
        if (!transport.ok) return errorAnswer(transport.error);
        const refused = await transport.value.deliverBody(operation.body, operation.requests, operation.size, operation.auth, operation.trace);
        return refused ? errorAnswer(refused.error, refused.id) : { status: 202 };
      }
      case "post": {
        if (operation.create) {
          const created = await this.#create(sessionId, StreamableHttpTransport.type, operation.owner, operation.shareKey);
          if (!created.ok) return errorAnswer(created.error);
          const answer = await created.value.post(operation.messages, operation.size, { headers: { "mcp-session-id": sessionId }, auth: operation.auth, trace: operation.trace });
          // An initialize that took stored the version it negotiated; one refused answered an error,
          // whose client never learns this id (an error carries none): end the session now, not at its deadline.
          if (answer instanceof Response || this.#session?.record.protocolVersion !== undefined) return answer;
          await this.#session?.end("initialize-refused");
          this.#session = undefined;
          const { "mcp-session-id": _unused, ...headers } = answer.headers ?? {};
          return { ...answer, headers };
        }
        const transport = this.#find(sessionId, "streamable", operation.owner);
        return transport.ok ? transport.value.post(operation.messages, operation.size, { auth: operation.auth, trace: operation.trace }) : errorAnswer(transport.error);
      }
      case "stream": {
        const transport = this.#find(sessionId, "streamable", operation.owner);
        return transport.ok ? transport.value.openStream(operation.lastEventId, operation.relayed) : errorAnswer(transport.error);
      }
      case "end": {
        const session = this.#require(sessionId, operation.owner);
        if (!session.ok) return errorAnswer(session.error);
        await session.value.end("client-deleted");
        this.#session = undefined;
        return { status: 204 };
      }
    }
  }

  async #create<T extends Transport>(sessionId: string, type: TransportType<T>, owner: string | undefined, shareKey: string | undefined): Promise<Checked<T>> {
    if (this.#session) return refused(new McpError(409, ErrorCode.InvalidRequest, "Session already exists"));
    // Its client's share first (fair shares: at most MAX_SESSIONS_PER_CLIENT, and MAX_SESSIONS in a
    // process), lapsing at its first deadline unless the session pushes it on.
    if (shareKey !== undefined && this.#deps.shares) {
      const share = await this.#deps.shares.acquire("session", shareKey, sessionId, { until: pushedDeadline(Date.now(), this.#deps.config.sessionIdleTtlMs) });
      if (!share.ok) return share;
    }
    const session = await Session.create(sessionId, type, this.#deps, owner, shareKey);
    this.#session = session;
    return passed(session.transport);
  }

  /** The live session of this id, used by its own principal (`owner`: both undefined where tokens are not checked). */
  #require(sessionId: string, owner: string | undefined): Checked<Session> {
    const session = this.#session;
    if (!session || session.ended || session.record.id !== sessionId || session.record.owner !== owner) {
      return refused(new McpError(404, ErrorCode.InvalidRequest, "Unknown session: it never existed, or it ended; start a new one"));
    }
    return passed(session);
  }

  /** The session's transport, when it is of the kind the endpoint serves; using one on the other's endpoints is a 400. */
  #find<K extends keyof HttpTransports>(sessionId: string, kind: K, owner: string | undefined): Checked<HttpTransports[K]> {
    const session = this.#require(sessionId, owner);
    if (!session.ok) return session;
    const { transport } = session.value;
    if (kind === "legacy" ? transport instanceof SingleStreamTransport : transport instanceof StreamableHttpTransport) return passed(transport as HttpTransports[K]);
    return refused(McpError.invalidRequest(WRONG_ENDPOINTS[kind], 400));
  }
}

/** What a relayed connection reads: a legacy session's stream, or one Streamable HTTP stream. */
export type Relayed = { kind: "legacy" } | { kind: "stream"; streamId: string };

interface HttpTransports {
  legacy: SingleStreamTransport<Uint8Array>;
  streamable: StreamableHttpTransport;
}

const WRONG_ENDPOINTS: Record<keyof HttpTransports, string> = {
  legacy: "This is a Streamable HTTP session; use GET and POST /mcp",
  streamable: "This is a legacy HTTP+SSE session; use GET /sse and POST /message",
};
