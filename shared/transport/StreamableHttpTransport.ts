/**
 * Streamable HTTP (2025-03-26 … 2025-11-25, transports spec): `POST /mcp` is answered with JSON
 * or with its own SSE stream, `GET /mcp` opens the standalone stream for messages that answer no
 * request, and either resumes after `Last-Event-ID`.
 *
 * A POST whose one request is answered before anything else is sent gets a plain JSON body: no
 * stream is made and nothing is stored (`PostAnswer`). Anything else streams, and every event of
 * a stream is stored before it is written (`ResumableStream`, `EventStore`), so a client that lost
 * a connection resumes any stream of the session, even after the host restarted. A lost
 * connection is not a cancellation (transports spec): requests go on and their events wait in
 * storage. A POST's stream finishes once each of its requests has settled.
 *
 * Across a reload (eviction, deploy, restart): the standalone stream's id is stored
 * (`STANDALONE_KEY`), so a client resuming it continues the same live stream, numbered on from
 * its last stored event; a POST stream cut short gets an error for each request left unanswered
 * (`UnfinishedPosts`); and resuming a stream with nothing stored (from its priming id, say)
 * answers an empty stream that ends, never the 404 that tells a client its session is gone.
 *
 * Not here: session creation and deletion (`SessionHost`), the header checks (routes).
 */
import type { Principal } from "../auth/Principal.ts";
import { McpError } from "../errors/McpError.ts";
import type { Outlet } from "../exchange/Exchange.ts";
import type { Answer } from "../http/Answer.ts";
import { errorAnswer } from "../http/errorResponse.ts";
import { type JsonRpcMessage, requestIds } from "../jsonrpc/messages.ts";
import { EventStore } from "../outbound/EventStore.ts";
import { JSON_HEADERS, PostAnswer } from "../http/PostAnswer.ts";
import type { Reservation } from "../outbound/QueueBudget.ts";
import { ResumableStream } from "../outbound/ResumableStream.ts";
import { randomHex } from "../bytes/randomHex.ts";
import type { Transport, TransportLink, TransportType } from "../session/Transport.ts";
import { UnfinishedPosts } from "./UnfinishedPosts.ts";
import type { HopTrace } from "../telemetry/Telemetry.ts";

/** Largest single event kept for resumption; larger ones go out live only. Below storage's value limit. */
export const MAX_STORED_EVENT_BYTES = 1_048_576;
/** Protocol revisions whose clients understand the SEP-1699 priming event. */
const PRIMING_SINCE = "2025-11-25";
/** Where the standalone stream's id is kept, so a reload continues it. */
export const STANDALONE_KEY = "stream:standalone";
/** 48 random bits: unique among one session's streams, and short in every event id (12 hex digits). */
const STREAM_ID_BYTES = 6;
const EVENT_ID = /^([0-9a-f]{12})\.(\d{1,10})$/;

export class StreamableHttpTransport implements Transport {
  static readonly type: TransportType<StreamableHttpTransport> = {
    kind: "streamable",
    create: (link) => new StreamableHttpTransport(link),
  };

  readonly #link: TransportLink;
  readonly #events: EventStore;
  readonly #posts: UnfinishedPosts;
  /** Live streams by id: unfinished POST streams and the standalone stream. */
  readonly #streams = new Map<string, ResumableStream>();
  #standalone: ResumableStream | undefined;

  private constructor(link: TransportLink) {
    this.#link = link;
    const { config, storage } = link;
    this.#events = new EventStore(storage, {
      maxEvents: config.maxStoredEvents,
      maxBytes: config.maxStoredBytes,
      maxEventBytes: MAX_STORED_EVENT_BYTES,
    });
    this.#posts = new UnfinishedPosts(storage, link.log);
  }

  get connected(): boolean {
    for (const stream of this.#streams.values()) if (stream.connected) return true;
    return false;
  }

  async restore(): Promise<void> {
    await this.#events.load();
    const standalone = await this.#link.storage.get<string>(STANDALONE_KEY);
    if (standalone !== undefined) this.#standalone = this.#newStream(standalone, true, this.#events.lastSeq(standalone));
    await this.#posts.settle(this.#events, (id, lastSeq) => this.#newStream(id, false, lastSeq));
  }

  /**
   * Answers one POST: 202 for notifications and responses only; otherwise the requests' replies,
   * as one JSON object when the single request produces nothing but its reply, else as an SSE
   * stream carrying its notifications, server requests and replies. `headers` go on the answer;
   * `auth` is the POST's principal, its handlers' `ctx.auth`.
   */
  async post(messages: JsonRpcMessage[], size: number, { headers = {}, auth, trace }: { headers?: Record<string, string>; auth?: Principal; trace?: HopTrace } = {}): Promise<Answer> {
    await this.#link.touch();
    const ids = requestIds(messages);
    const refused = this.#link.admit(ids, size);
    if (refused) return errorAnswer(refused.error, refused.id);
    let owed = ids.length;
    if (owed === 0) {
      await this.#link.accept(messages, undefined, size, auth, trace);
      return { status: 202 };
    }
    let stream: ResumableStream | undefined;
    let unmark: (() => void) | undefined;
    const streamOf = () => {
      if (stream) return stream;
      stream = this.#newStream(randomHex(STREAM_ID_BYTES), true);
      unmark = this.#posts.mark(stream.id, ids);
      return stream;
    };
    const answer = new PostAnswer(
      () => withHeaders(streamOf().connect(), headers),
      owed === 1 && messages.length === 1 ? { ...JSON_HEADERS, ...headers } : undefined,
    );
    const settled = () => {
      if (--owed > 0) return;
      // A POST whose replies were all dropped (cancelled) still gets an answer: its stream, ended.
      answer.stream();
      if (!stream) return;
      stream.finish();
      this.#streams.delete(stream.id);
      unmark?.();
    };
    await this.#link.accept(messages, { outlet: (reservation) => postOutlet(answer, streamOf, reservation, settled) }, size, auth, trace);
    return answer.response;
  }

  /**
   * `GET /mcp`. With `Last-Event-ID`, resumes the stream that id belongs to: replays its stored
   * events after that id, then continues live if the stream is unfinished. Without, opens the
   * standalone stream for server-initiated messages (one at a time).
   */
  async openStream(lastEventId: string | null, relayed = false): Promise<Answer> {
    await this.#link.touch();
    if (lastEventId !== null) return this.#resume(lastEventId, relayed);
    // A second GET replaces the first (as a legacy reopen does): the client may know its stream is dead before we do.
    const standalone = this.#standaloneStream();
    this.#link.log.info("stream.open", { stream: standalone.id, standalone: true });
    return standalone.connect(relayed);
  }

  /** The standalone stream's id (made on first use): what a relayed GET stream is attached to. */
  get standaloneId(): string {
    return this.#standaloneStream().id;
  }

  /**
   * A relayed connection outlived this host's memory (a hibernated Durable Object woke up): it
   * reads stream `streamId` again, live from the last event given out — everything before was
   * sent before the host went idle.
   */
  reattach(streamId: string): Response {
    const stream = this.#streams.get(streamId) ?? this.#finishedStream(streamId);
    return stream.resume(stream.seq, true);
  }

  notify(json: string, signal?: AbortSignal): Promise<void> {
    return this.#standaloneStream().notify(json, signal);
  }

  close(): void {
    for (const stream of this.#streams.values()) stream.close();
  }

  /** The standalone stream, made (and its id stored, in the order storage applies writes) on first use. */
  #standaloneStream(): ResumableStream {
    if (this.#standalone) return this.#standalone;
    const stream = (this.#standalone = this.#newStream(randomHex(STREAM_ID_BYTES), true));
    this.#link.storage.put(STANDALONE_KEY, stream.id).catch((error: unknown) => this.#link.log.warn("stream.id-not-stored", { stream: stream.id, message: String(error) }));
    return stream;
  }

  async #resume(lastEventId: string, relayed: boolean): Promise<Answer> {
    const match = EVENT_ID.exec(lastEventId);
    if (!match) return errorAnswer(McpError.invalidRequest(`Malformed Last-Event-ID ${JSON.stringify(lastEventId)}: expected an event id this session sent`));
    const [, streamId, seq] = match as unknown as [string, string, string];
    const stream = this.#streams.get(streamId) ?? this.#finishedStream(streamId);
    this.#link.log.info("stream.resume", { stream: streamId, after: Number(seq) });
    return stream.resume(Number(seq), relayed);
  }

  /** A stream no longer live: it replays what is stored (maybe nothing), then ends. */
  #finishedStream(streamId: string): ResumableStream {
    const stream = this.#newStream(streamId, false, this.#events.lastSeq(streamId));
    stream.finish();
    return stream;
  }

  /** A live stream is kept for resumption until it finishes; a replayed finished one is not. */
  #newStream(id: string, live: boolean, lastSeq = 0): ResumableStream {
    const { config, log } = this.#link;
    const stream = new ResumableStream({
      id,
      budget: this.#link.budget,
      events: this.#events,
      keepaliveIntervalMs: config.keepaliveIntervalMs,
      primingRetryMs: this.#link.protocolVersion() >= PRIMING_SINCE ? config.sseRetryMs : undefined,
      lastSeq,
      log,
      onDisconnect: (reason) => this.#link.closed(id, reason, false),
    });
    if (live) this.#streams.set(id, stream);
    return stream;
  }
}

/** One request's outlet on a POST: the reply may become the whole JSON answer; anything else streams. */
function postOutlet(answer: PostAnswer, stream: () => ResumableStream, reservation: Reservation, settled: () => void): Outlet {
  return {
    async reply(_message, json) {
      try {
        if (answer.json(json)) reservation.commit();
        else await stream().reply(json, reservation);
      } finally {
        settled();
      }
    },
    notify(_message, json, signal) {
      answer.stream();
      return stream().notify(json, signal);
    },
    drop() {
      reservation.release();
      settled();
    },
    disconnect() {
      answer.stream();
      stream().disconnect();
    },
  };
}

/** `response` (one of ours, so its headers are mutable) with `headers` added. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
