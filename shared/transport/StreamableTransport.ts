/**
 * Streamable HTTP (2025-03-26 … 2025-11-25, transports spec): `POST /mcp` is answered with JSON
 * or with its own SSE stream, `GET /mcp` opens the standalone stream for messages that answer no
 * request, and either resumes after `Last-Event-ID`.
 *
 * Every event is stored before it is written (`EventStore`), with the id `<streamId>.<seq>`, so
 * a client that lost a connection resumes any stream of the session, even after the host
 * restarted. A lost connection is not a cancellation (transports spec): requests go on and their
 * events wait in storage. A POST's stream finishes once each of its requests has settled.
 *
 * Not here: session creation and deletion (`SessionEndpoint`), the headers checks (routes).
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { isRequest, type JsonRpcMessage } from "../jsonrpc/messages.ts";
import { randomHex } from "../session/newSessionId.ts";
import { Channel } from "./Channel.ts";
import { EventStore } from "./EventStore.ts";
import type { Outlet, Transport, TransportLink, TransportType } from "./Transport.ts";

/** Largest single event kept for resumption; larger ones go out live only. Below storage's value limit. */
export const MAX_STORED_EVENT_BYTES = 1_048_576;
/** Protocol revisions whose clients understand the SEP-1699 priming event. */
const PRIMING_SINCE = "2025-11-25";
/** 48 random bits: unique among one session's streams, and short in every event id (12 hex digits). */
const STREAM_ID_BYTES = 6;
const EVENT_ID = /^([0-9a-f]{12})\.(\d{1,10})$/;

export class StreamableTransport implements Transport {
  static readonly type: TransportType<StreamableTransport> = {
    kind: "streamable",
    create: (link) => new StreamableTransport(link),
  };

  readonly #link: TransportLink;
  readonly #events: EventStore;
  /** Live channels by stream id: unfinished POST streams and the standalone stream. */
  readonly #channels = new Map<string, Channel>();
  #standalone: Channel | undefined;

  private constructor(link: TransportLink) {
    this.#link = link;
    const { config, storage } = link;
    this.#events = new EventStore(storage, {
      maxEvents: config.maxStoredEvents,
      maxBytes: config.maxStoredBytes,
      maxEventBytes: MAX_STORED_EVENT_BYTES,
    });
  }

  get connected(): boolean {
    for (const channel of this.#channels.values()) if (channel.connected) return true;
    return false;
  }

  restore(): Promise<void> {
    return this.#events.load();
  }

  /**
   * Answers one POST: 202 for notifications and responses only; otherwise the requests' replies,
   * as one JSON object when the single request produces nothing but its reply, else as an SSE
   * stream carrying its notifications, server requests and replies.
   */
  async post(messages: JsonRpcMessage[], headers: Record<string, string> = {}): Promise<Response> {
    this.#link.touch();
    const refused = this.#link.admit(messages);
    if (refused) return Response.json(refused.body, { status: refused.status, headers: refused.headers });
    const requests = messages.filter(isRequest).length;
    if (requests === 0) {
      await this.#link.accept(messages, undefined);
      return new Response(null, { status: 202 });
    }
    const channel = this.#newChannel(randomHex(STREAM_ID_BYTES), requests);
    const response = channel.respond(requests === 1 && messages.length === 1, headers);
    await this.#link.accept(messages, channel);
    return response;
  }

  /**
   * `GET /mcp`. With `Last-Event-ID`, resumes the stream that id belongs to: replays its stored
   * events after that id, then continues live if the stream is unfinished. Without, opens the
   * standalone stream for server-initiated messages (one at a time).
   */
  async listen(lastEventId: string | null): Promise<Response> {
    this.#link.touch();
    if (lastEventId !== null) return this.#resume(lastEventId);
    if (this.#standalone?.connected) {
      throw new McpError(409, ErrorCode.InvalidRequest, "This session already has an open GET stream; resume it with Last-Event-ID or close it first");
    }
    const standalone = this.serverOutlet();
    this.#link.log.info("stream.open", { stream: standalone.id, standalone: true });
    return standalone.connect();
  }

  serverOutlet(): Channel {
    return (this.#standalone ??= this.#newChannel(randomHex(STREAM_ID_BYTES)));
  }

  close(): void {
    for (const channel of this.#channels.values()) channel.close();
  }

  async #resume(lastEventId: string): Promise<Response> {
    const match = EVENT_ID.exec(lastEventId);
    if (!match) throw McpError.invalidRequest(`Malformed Last-Event-ID ${JSON.stringify(lastEventId)}: expected an event id this session sent`);
    const [, streamId, seq] = match as unknown as [string, string, string];
    let channel = this.#channels.get(streamId);
    if (!channel && this.#events.has(streamId)) {
      // A finished stream whose events are still stored: replay them, then end the response.
      channel = this.#newChannel(streamId, undefined, false);
      channel.finish();
    }
    if (!channel) {
      throw new McpError(404, ErrorCode.InvalidRequest, `Last-Event-ID ${JSON.stringify(lastEventId)} belongs to no stream of this session (or its events have expired)`);
    }
    this.#link.log.info("stream.resume", { stream: streamId, after: Number(seq) });
    return channel.resume(Number(seq));
  }

  /** A POST stream owes `replies`; the standalone stream owes none and never finishes on its own. */
  #newChannel(id: string, replies?: number, live = true): Channel {
    const channel = new Channel({
      id,
      budget: this.#link.budget,
      keepaliveIntervalMs: this.#link.config.keepaliveIntervalMs,
      log: this.#link.log,
      events: this.#events,
      primingRetryMs: this.#link.protocolVersion() >= PRIMING_SINCE ? this.#link.config.sseRetryMs : undefined,
      replies,
      onAnswered: () => this.#channels.delete(id),
      onDisconnect: (reason) => this.#link.closed(id, reason, false),
    });
    if (live) this.#channels.set(id, channel);
    return channel;
  }
}
