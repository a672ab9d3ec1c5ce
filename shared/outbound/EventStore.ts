/**
 * The stored SSE events of one session, so that a client that lost its connection can resume a
 * stream with `Last-Event-ID` and lose nothing (transports spec, "Resumability and Redelivery").
 * Each event is stored before it is written to the wire.
 *
 * Key layout: `ev:<streamId>:<seq, 10 digits>` → the encoded SSE frame (bytes, as sent).
 * Zero-padding keeps a stream's events in order under a prefix scan.
 *
 * Retention is bounded per session, in events and in bytes; the oldest events go first. An event
 * larger than `maxEventBytes` is not stored at all (it is still delivered live, and the session
 * logs that it cannot be replayed). The in-memory index is a cache, rebuilt by `load()`.
 *
 * Not here: event ids on the wire, which stream an event belongs to, what to replay.
 */
import type { KeyValueStore } from "../storage/KeyValueStore.ts";

export const EVENT_PREFIX = "ev:";

export interface EventStoreLimits {
  maxEvents: number;
  maxBytes: number;
  maxEventBytes: number;
}

interface Indexed {
  key: string;
  streamId: string;
  bytes: number;
}

export function eventKey(streamId: string, seq: number): string {
  return `${EVENT_PREFIX}${streamId}:${String(seq).padStart(10, "0")}`;
}

export class EventStore {
  #index: Indexed[] = [];
  #head = 0;
  #bytes = 0;
  readonly #perStream = new Map<string, number>();
  /** The highest sequence number stored per stream, even after its events were evicted: numbering goes on after a reload. */
  readonly #lastSeq = new Map<string, number>();

  constructor(
    private readonly storage: KeyValueStore,
    readonly limits: EventStoreLimits,
  ) {}

  get stats(): { events: number; bytes: number } {
    return { events: this.#index.length - this.#head, bytes: this.#bytes };
  }

  /** Rebuilds the index from storage (after an eviction or restart). */
  async load(): Promise<void> {
    const stored = await this.storage.list<Uint8Array>(EVENT_PREFIX);
    this.#index = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#perStream.clear();
    this.#lastSeq.clear();
    // Keys sort by stream, not by time; within a session, older streams were evicted first anyway.
    for (const [key, frame] of stored) this.#track(key, streamOf(key), seqOf(key), frame.byteLength);
  }

  /** Stores one event; false (and nothing stored) when it is over `maxEventBytes`. */
  async append(streamId: string, seq: number, frame: Uint8Array): Promise<boolean> {
    const bytes = frame.byteLength;
    if (bytes > Math.min(this.limits.maxEventBytes, this.storage.maxValueBytes ?? Infinity)) return false;
    const key = eventKey(streamId, seq);
    await this.storage.put(key, frame);
    this.#track(key, streamId, seq, bytes);
    await this.#evict();
    return true;
  }

  /** Whether any event of this stream is stored. */
  has(streamId: string): boolean {
    return (this.#perStream.get(streamId) ?? 0) > 0;
  }

  /** The highest sequence number stored for `streamId` since the index was loaded; 0 for none. */
  lastSeq(streamId: string): number {
    return this.#lastSeq.get(streamId) ?? 0;
  }

  /** The stored frames of `streamId` after `seq` (and up to `upTo`, when given), oldest first. */
  async after(streamId: string, seq: number, upTo = Infinity): Promise<Uint8Array[]> {
    const from = eventKey(streamId, seq);
    const to = Number.isFinite(upTo) ? eventKey(streamId, upTo) : undefined;
    const frames: Uint8Array[] = [];
    for (const [key, frame] of await this.storage.list<Uint8Array>(`${EVENT_PREFIX}${streamId}:`)) {
      if (key > from && (to === undefined || key <= to)) frames.push(frame);
    }
    return frames;
  }

  #track(key: string, streamId: string, seq: number, bytes: number): void {
    this.#index.push({ key, streamId, bytes });
    this.#bytes += bytes;
    this.#perStream.set(streamId, (this.#perStream.get(streamId) ?? 0) + 1);
    if (seq > this.lastSeq(streamId)) this.#lastSeq.set(streamId, seq);
  }

  async #evict(): Promise<void> {
    const doomed: string[] = [];
    while (this.stats.events > this.limits.maxEvents || this.#bytes > this.limits.maxBytes) {
      const oldest = this.#index[this.#head++]!;
      this.#bytes -= oldest.bytes;
      const left = (this.#perStream.get(oldest.streamId) ?? 1) - 1;
      if (left === 0) this.#perStream.delete(oldest.streamId);
      else this.#perStream.set(oldest.streamId, left);
      doomed.push(oldest.key);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#index.length) {
      this.#index = this.#index.slice(this.#head);
      this.#head = 0;
    }
    for (const key of doomed) await this.storage.delete(key);
  }
}

function streamOf(key: string): string {
  return key.slice(EVENT_PREFIX.length, key.lastIndexOf(":"));
}

function seqOf(key: string): number {
  return Number(key.slice(key.lastIndexOf(":") + 1));
}
