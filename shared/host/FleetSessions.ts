/**
 * A process's 2025 sessions when several processes serve one store with no affinity (a fleet):
 * each session is held by one process (`Fleet.holder`), which hosts it in its `LocalSessions` —
 * its handlers, its streams, its timers. An operation that reaches another process is carried to
 * the holder as a message through the store, and its answer comes back: by value when it is plain
 * data (a JSON reply, a 202), else as a relayed stream, head first and then its bytes in order.
 * So an HTTP+SSE client's POSTs reach its stream wherever they land, and so do a Streamable HTTP
 * client's answers to the server's requests, its cancellations and its `Last-Event-ID`.
 *
 * A holder that dies loses its lease within PROCESS_TTL_MS; the next process a request for one of
 * its sessions reaches claims the session and loads it from the store, event log included, so a
 * client that reconnects resumes its stream. Meanwhile a request waits for the holder (at most
 * PROCESS_TTL_MS and TAKE_TIMEOUT_MS) instead of failing, and a relayed stream whose holder died
 * ends, which tells its client to reconnect.
 *
 * Bounds: a relayed stream's unread bytes past the session's queue budget (`maxQueueBytes`) end it
 * (its client resumes from the event log); a message's text is at most what the largest body
 * makes (`FleetWire`); relays end with their requests, and both sides check every HEARTBEAT_MS
 * that the process at the other end is alive, so none outlives its peer.
 */
import { base64url, fromBase64url } from "../bytes/base64url.ts";
import type { Config } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { type Answer, isPlain, plainAnswer, type TextAnswer, toResponse } from "../http/Answer.ts";
import { errorAnswer } from "../http/errorResponse.ts";
import type { Logger } from "../log/Logger.ts";
import { logId } from "../log/logId.ts";
import { type Fleet, HEARTBEAT_MS, PROCESS_TTL_MS } from "../runtime/Fleet.ts";
import type { LocalRuntime } from "../runtime/localRuntime.ts";
import { FleetWire } from "./FleetWire.ts";
import { LocalSessions } from "./LocalSessions.ts";
import { decodeOperation, encodeOperation, type WireOperation } from "./wireOperation.ts";
import type { SessionOperation, Sessions } from "./SessionOperation.ts";

/** How long a holder may take to say it took an operation before the requester asks whether it lives. */
export const TAKE_TIMEOUT_MS = 5_000;
/** How long a request waits, in all, for the process holding its session: one that died has lost its lease by then. */
export const HOLDER_WAIT_MS = PROCESS_TTL_MS + TAKE_TIMEOUT_MS;
/** How often a request that waits on a silent holder asks again who holds its session. */
const RECHECK_MS = 1_000;
/** Bytes of a relayed stream per message: a few pieces of the store's message each. */
const CHUNK_BYTES = 32 * 1024;

/** What the processes say to each other about one relay (`r`: the requester's number for it). */
type RelayMessage =
  | { k: "op"; r: number; op: WireOperation }
  | { k: "taken"; r: number }
  | { k: "moved"; r: number }
  | { k: "plain"; r: number; answer: TextAnswer }
  | { k: "head"; r: number; status: number; headers: [string, string][] }
  | { k: "body"; r: number; d: string }
  | { k: "end"; r: number }
  | { k: "cancel"; r: number };

/** A request carried to another process, on the requester's side. */
interface Outgoing {
  holder: string;
  sentAt: number;
  taken: boolean;
  /** While the request waits: settles it with the answer, or with what to do instead. */
  wait?(outcome: Answer | "moved" | "silent"): void;
  /** Once a stream's head came: where its bytes go. */
  stream?: ReadableStreamDefaultController<Uint8Array>;
}

/** A request another process carried here, on the holder's side: how to stop reading its answer. */
interface Incoming {
  from: string;
  cancel(): void;
}

export class FleetSessions implements Sessions {
  readonly #local: LocalSessions;
  readonly #fleet: Fleet;
  readonly #logger: Logger;
  readonly #config: Config;
  readonly #bodyless: boolean | undefined;
  readonly #wire: FleetWire<RelayMessage>;
  readonly #outgoing = new Map<number, Outgoing>();
  readonly #incoming = new Map<string, Incoming>();
  /** Sessions this process claimed and hosts: operations on them need no question to the store. */
  readonly #held = new Set<string>();
  #relays = 0;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #expelled = false;

  constructor(runtime: LocalRuntime, fleet: Fleet) {
    this.#fleet = fleet;
    this.#logger = runtime.logger;
    this.#config = runtime.config;
    this.#bodyless = runtime.bodylessAnswers;
    this.#local = new LocalSessions(runtime, { forgotten: (id) => this.#forgotten(id) });
    // The longest message: a deliver's body in base64 with its operation around it.
    const maxChars = Math.ceil((runtime.config.maxBodyBytes * 4) / 3) + 64 * 1024;
    this.#wire = new FleetWire<RelayMessage>(fleet, maxChars, (from, message) => this.#receive(from, message), (error, to) =>
      this.#logger.warn("fleet.send-failed", { to: logId(to), message: String(error) }),
    );
  }

  /** Sessions in memory in this process now. */
  get size(): number {
    return this.#local.size;
  }

  /** Joins the fleet, then loads the stored sessions no live process holds (this one claims them): at start, before serving. */
  async restoreStored(): Promise<void> {
    await this.#fleet.join({
      receive: (raw) => this.#wire.receive(raw),
      expelled: () => {
        this.#expelled = true;
        this.#logger.error("fleet.expelled", { message: "this process lost its lease in the store: it serves no session from now on; restart it" });
      },
    });
    const mine: string[] = [];
    for (const id of await this.#local.storedIds()) if ((await this.#claim(id)) === this.#fleet.self) mine.push(id);
    await this.#local.restore(mine);
  }

  async apply(operation: SessionOperation): Promise<Response> {
    const deadline = Date.now() + HOLDER_WAIT_MS;
    for (;;) {
      if (this.#expelled) return toResponse(errorAnswer(unavailable("This process lost its place among the servers; retry, and another will answer")), this.#bodyless);
      const holder = await this.#claim(operation.sessionId);
      if (holder === this.#fleet.self) return this.#local.apply(operation);
      const outcome = await this.#relay(holder, operation);
      if (outcome !== "moved" && outcome !== "silent") return toResponse(outcome, this.#bodyless);
      if (Date.now() >= deadline) return toResponse(errorAnswer(unavailable("The server holding this session does not answer; retry")), this.#bodyless);
      // A holder that went silent keeps its lease a while: ask again shortly, not at once.
      if (outcome === "silent") await pause(RECHECK_MS);
    }
  }

  /** Ends every live session of the principal with this digest held here (a user's data erased on request). */
  endOwnedBy(owner: string): Promise<number> {
    return this.#local.endOwnedBy(owner);
  }

  /** Stops every timer; the store's `close()` leaves the fleet. */
  close(): void {
    this.#local.close();
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
    for (const [r, outgoing] of this.#outgoing) {
      if (outgoing.wait) this.#settle(r, outgoing, errorAnswer(unavailable("This server is stopping; retry")));
      else this.#endStream(r, outgoing, "its server is stopping");
    }
    for (const incoming of this.#incoming.values()) incoming.cancel();
  }

  async #claim(id: string): Promise<string> {
    if (this.#held.has(id)) return this.#fleet.self;
    const holder = await this.#fleet.holder(id);
    if (holder === this.#fleet.self) this.#held.add(id);
    return holder;
  }

  #forgotten(id: string): void {
    if (!this.#held.delete(id)) return;
    this.#fleet.release(id).catch((error) => this.#logger.warn("fleet.release-failed", { session: logId(id), message: String(error) }));
  }

  /** Carries `operation` to `holder`: its answer, or "moved" (it holds the session no more) or "silent" (it did not take it in time). */
  #relay(holder: string, operation: SessionOperation): Promise<Answer | "moved" | "silent"> {
    const r = ++this.#relays;
    return new Promise((resolve) => {
      const outgoing: Outgoing = { holder, sentAt: Date.now(), taken: false, wait: resolve };
      this.#outgoing.set(r, outgoing);
      this.#armWatchdog();
      this.#wire.send(holder, { k: "op", r, op: encodeOperation(operation) }).catch((error) => this.#settle(r, outgoing, errorAnswer(error, null, this.#logger)));
    });
  }

  /** Hands the waiting request its outcome; a stream's relay stays open for its bytes. */
  #settle(r: number, outgoing: Outgoing, outcome: Answer | "moved" | "silent"): void {
    const wait = outgoing.wait;
    outgoing.wait = undefined;
    if (!(outcome instanceof Response)) this.#outgoing.delete(r);
    wait?.(outcome);
  }

  #receive(from: string, message: RelayMessage): void {
    if (typeof message !== "object" || message === null || typeof message.r !== "number") return;
    if (message.k === "op") return void this.#serve(from, message.r, message.op);
    if (message.k === "cancel") return this.#incoming.get(`${from}/${message.r}`)?.cancel();
    const outgoing = this.#outgoing.get(message.r);
    if (!outgoing || outgoing.holder !== from) return;
    switch (message.k) {
      case "taken":
        outgoing.taken = true;
        return;
      case "moved":
        return this.#settle(message.r, outgoing, "moved");
      case "plain":
        return this.#settle(message.r, outgoing, message.answer);
      case "head":
        return this.#settle(message.r, outgoing, this.#streamed(message.r, outgoing, message.status, message.headers));
      case "body": {
        const stream = outgoing.stream;
        if (!stream) return;
        const bytes = fromBase64url(message.d);
        if (bytes) stream.enqueue(bytes);
        // A client that does not read: its stream ends, and it resumes from the stored events.
        if ((stream.desiredSize ?? 0) < 0) this.#endStream(message.r, outgoing, "its client read too slowly");
        return;
      }
      case "end":
        this.#outgoing.delete(message.r);
        if (outgoing.wait) return this.#settle(message.r, outgoing, errorAnswer(unavailable("The server holding this session failed to answer; retry")));
        return outgoing.stream?.close();
    }
  }

  /** The response whose bytes the holder relays, from its head on. */
  #streamed(r: number, outgoing: Outgoing, status: number, headers: [string, string][]): Response {
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (outgoing.stream = controller),
        cancel: () => {
          this.#outgoing.delete(r);
          void this.#wire.send(outgoing.holder, { k: "cancel", r });
        },
      },
      { highWaterMark: this.#config.maxQueueBytes, size: (chunk) => chunk.byteLength },
    );
    return new Response(body, { status, headers });
  }

  /** Ends a relayed stream early (its holder died, its client is too slow): its client reconnects and resumes. */
  #endStream(r: number, outgoing: Outgoing, why: string | undefined): void {
    if (!this.#outgoing.delete(r)) return;
    if (why) this.#logger.info("fleet.relay-ended", { holder: logId(outgoing.holder), reason: why });
    void this.#wire.send(outgoing.holder, { k: "cancel", r });
    try {
      outgoing.stream?.error(new Error(`The session's stream ended: ${why ?? "it moved"}`));
    } catch {
      // Already closed by its reader.
    }
  }

  /** The holder's side: applies an operation carried here and sends its answer back. */
  async #serve(from: string, r: number, wired: WireOperation): Promise<void> {
    const key = `${from}/${r}`;
    let headSent = false;
    try {
      await this.#wire.send(from, { k: "taken", r });
      const operation = decodeOperation(wired);
      if (!operation) return void (await this.#wire.send(from, { k: "plain", r, answer: errorAnswer(McpError.invalidRequest("A malformed operation between servers")) }));
      if (this.#expelled || (await this.#claim(operation.sessionId)) !== this.#fleet.self) return void (await this.#wire.send(from, { k: "moved", r }));
      const answer = await this.#local.answer(operation);
      const plain = answer instanceof Response ? (isPlain(answer) ? plainAnswer(answer) : undefined) : answer;
      if (plain) return void (await this.#wire.send(from, { k: "plain", r, answer: plain }));
      const response = answer as Response;
      headSent = true;
      await this.#wire.send(from, { k: "head", r, status: response.status, headers: [...response.headers] });
      if (!response.body) return void (await this.#wire.send(from, { k: "end", r }));
      const reader = response.body.getReader();
      let cancelled = false;
      this.#incoming.set(key, {
        from,
        cancel: () => {
          cancelled = true;
          reader.cancel().catch(() => {});
        },
      });
      this.#armWatchdog();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || cancelled) break;
        for (let at = 0; at < value.byteLength; at += CHUNK_BYTES) await this.#wire.send(from, { k: "body", r, d: base64url(value.subarray(at, at + CHUNK_BYTES)) });
      }
      if (!cancelled) await this.#wire.send(from, { k: "end", r });
    } catch (error) {
      this.#logger.warn("fleet.serve-failed", { from: logId(from), message: String(error) });
      await this.#wire.send(from, headSent ? { k: "end", r } : { k: "plain", r, answer: errorAnswer(error, null, this.#logger) }).catch(() => {});
    } finally {
      this.#incoming.delete(key);
    }
  }

  /** While relays are open, checks every HEARTBEAT_MS that the process at their other end lives. */
  #armWatchdog(): void {
    this.#watchdog ??= setInterval(() => void this.#watch().catch((error) => this.#logger.warn("fleet.watch-failed", { message: String(error) })), HEARTBEAT_MS);
  }

  async #watch(): Promise<void> {
    if (this.#outgoing.size === 0 && this.#incoming.size === 0) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
      return;
    }
    const peers = new Set<string>();
    for (const outgoing of this.#outgoing.values()) peers.add(outgoing.holder);
    for (const incoming of this.#incoming.values()) peers.add(incoming.from);
    const dead = new Set<string>();
    for (const peer of peers) if (!(await this.#fleet.alive(peer))) dead.add(peer);
    const now = Date.now();
    for (const [r, outgoing] of this.#outgoing) {
      if (!dead.has(outgoing.holder) && (outgoing.taken || now - outgoing.sentAt <= TAKE_TIMEOUT_MS)) continue;
      if (outgoing.wait) this.#settle(r, outgoing, "silent");
      else this.#endStream(r, outgoing, "its server stopped");
    }
    for (const incoming of this.#incoming.values()) if (dead.has(incoming.from)) incoming.cancel();
    for (const peer of dead) this.#wire.forget(peer);
  }
}

/** Seconds a client is asked to wait before it tries again: a holder's lease lapses within PROCESS_TTL_MS. */
const RETRY_AFTER_S = 1;

function unavailable(message: string): McpError {
  return new McpError(503, ErrorCode.InternalError, message, undefined, { "retry-after": String(RETRY_AFTER_S) });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
