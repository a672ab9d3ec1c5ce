/**
 * Messages between the processes of a fleet, as objects: each is JSON, stamped with its sender,
 * and split into pieces where its text is longer than a piece (a POST's body, a large event), so
 * nothing a session carries is too large for the store's messages (`MAX_FLEET_MESSAGE_BYTES`).
 *
 * Messages to one process leave one at a time, in the order they were given, so the pieces of one
 * message arrive together and in order: a receiver holds at most one message being assembled per
 * sender, and a piece that does not continue it drops that message (its sender is gone or
 * restarted). A message longer than `maxChars` is refused by the sender and dropped by the
 * receiver, so what one sender can make another hold is bounded.
 */
import type { Fleet } from "../runtime/Fleet.ts";
import { MAX_FLEET_MESSAGE_BYTES } from "../runtime/Fleet.ts";

/** Characters of a message's text per piece: three UTF-8 bytes each at most, with room for the envelope. */
export const PIECE_CHARS = Math.floor((MAX_FLEET_MESSAGE_BYTES - 200) / 3);

/** What travels: the message's text, whole or in pieces (`i` of `n`), with who sent it and its number. */
interface Envelope {
  from: string;
  /** The sender's number for the message, counting up: which message a piece belongs to. */
  m: number;
  i: number;
  n: number;
  text: string;
}

interface Assembly {
  m: number;
  next: number;
  n: number;
  parts: string[];
  chars: number;
}

export class FleetWire<T> {
  readonly #fleet: Fleet;
  readonly #maxChars: number;
  readonly #deliver: (from: string, message: T) => void;
  readonly #onError: (error: unknown, to: string) => void;
  /** The last send queued per receiver: the next waits for it. */
  readonly #queues = new Map<string, Promise<void>>();
  readonly #assemblies = new Map<string, Assembly>();
  #sent = 0;

  /**
   * @param maxChars the longest message's text, sent or received
   * @param deliver called with each whole message received, in order per sender; must not throw
   * @param onError a send the store refused (the message is lost: its relay notices the silence)
   */
  constructor(fleet: Fleet, maxChars: number, deliver: (from: string, message: T) => void, onError: (error: unknown, to: string) => void) {
    this.#fleet = fleet;
    this.#maxChars = maxChars;
    this.#deliver = deliver;
    this.#onError = onError;
  }

  /**
   * Sends `message` to `to` after every message given before it; resolves once the store took it,
   * or refused it (then `onError` hears why). Rejects with a RangeError past maxChars, sending nothing.
   */
  send(to: string, message: T): Promise<void> {
    const text = JSON.stringify(message);
    if (text.length > this.#maxChars) return Promise.reject(new RangeError(`A message between processes is ${text.length} characters, over the ${this.#maxChars} they carry`));
    const m = ++this.#sent;
    const n = Math.max(1, Math.ceil(text.length / PIECE_CHARS));
    const previous = this.#queues.get(to) ?? Promise.resolve();
    const sent = previous.then(async () => {
      try {
        for (let i = 0; i < n; i++) {
          const envelope: Envelope = { from: this.#fleet.self, m, i, n, text: text.slice(i * PIECE_CHARS, (i + 1) * PIECE_CHARS) };
          await this.#fleet.send(to, JSON.stringify(envelope));
        }
      } catch (error) {
        this.#onError(error, to);
      }
    });
    this.#queues.set(to, sent);
    // The queue is dropped once drained, so a receiver never sent to again holds nothing here.
    void sent.then(() => {
      if (this.#queues.get(to) === sent) this.#queues.delete(to);
    });
    return sent;
  }

  /** One raw message from the store (what `FleetMember.receive` is given). Malformed ones are dropped. */
  receive(raw: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    const { from, m, i, n, text } = envelope;
    if (typeof from !== "string" || typeof text !== "string" || !Number.isInteger(i) || !Number.isInteger(n) || i < 0 || i >= n) return;
    if (n === 1) {
      this.#assemblies.delete(from);
      this.#parse(from, text);
      return;
    }
    let assembly = this.#assemblies.get(from);
    if (i === 0) this.#assemblies.set(from, (assembly = { m, next: 0, n, parts: [], chars: 0 }));
    if (!assembly || assembly.m !== m || assembly.next !== i || assembly.n !== n) {
      this.#assemblies.delete(from);
      return;
    }
    assembly.parts.push(text);
    assembly.chars += text.length;
    assembly.next++;
    if (assembly.chars > this.#maxChars) {
      this.#assemblies.delete(from);
      return;
    }
    if (assembly.next < n) return;
    this.#assemblies.delete(from);
    this.#parse(from, assembly.parts.join(""));
  }

  /** Forgets what a sender left half sent (it is gone). */
  forget(from: string): void {
    this.#assemblies.delete(from);
  }

  #parse(from: string, text: string): void {
    let message: T;
    try {
      message = JSON.parse(text) as T;
    } catch {
      return;
    }
    this.#deliver(from, message);
  }
}
