/**
 * The answer to one POST that carries a request (transports spec: `application/json` or an SSE
 * stream, the server's choice): one JSON body when the first message for it is the single reply
 * it waits for, otherwise its stream, opened at that first message. A JSON answer needs no
 * queue, no stream and no stored event: the common tools/call costs one response object.
 *
 * @example
 * const answer = new PostAnswer(() => stream.connect(), JSON_HEADERS);
 * // …the reply: if (!answer.json(text)) stream.reply(text, reservation);
 * return answer.response;
 */

import type { Answer } from "./Answer.ts";

/** The headers of a JSON answer. */
export const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

export class PostAnswer {
  /** The stream's `Response`, or the JSON answer as plain data (see `Answer`). */
  readonly response: Promise<Answer>;
  #resolve!: (answer: Answer) => void;
  readonly #jsonHeaders: Readonly<Record<string, string>> | undefined;
  #pending = true;

  /**
   * @param open  opens the stream (called at most once)
   * @param jsonHeaders  the headers of a JSON answer; omit them when several replies are owed (no JSON answer then)
   */
  constructor(
    private readonly open: () => Response,
    jsonHeaders?: Readonly<Record<string, string>>,
  ) {
    this.response = new Promise((resolve) => (this.#resolve = resolve));
    this.#jsonHeaders = jsonHeaders;
    if (!jsonHeaders) this.stream();
  }

  /** True when `json`, the reply, became the whole answer (with `status`, and any `extra` headers); false when it must go on the stream. */
  json(json: string, status = 200, extra?: Readonly<Record<string, string>>): boolean {
    const headers = this.#jsonHeaders;
    if (!this.#pending || !headers) return false;
    this.#pending = false;
    this.#resolve({ status, headers: extra ? { ...headers, ...extra } : headers, body: json });
    return true;
  }

  /** Anything else goes first (a notification, a request to the client, a poll): the answer is the stream. */
  stream(): void {
    if (!this.#pending) return;
    this.#pending = false;
    this.#resolve(this.open());
  }
}
