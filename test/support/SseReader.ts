/**
 * Test helper: reads SSE events off a response body, one at a time, per the WHATWG parsing
 * rules (fields split at the first colon, one leading space dropped, `data` lines joined with
 * "\n", comments ignored). Web-standard only, so workerd and Node tests share it.
 */
export interface ReadEvent {
  event: string;
  data: string;
  id?: string;
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  /** Comment lines seen so far (keepalives). */
  comments = 0;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next event; rejects if none arrives within `timeoutMs` or the stream ends. */
  async next(timeoutMs = 5_000): Promise<ReadEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.#take();
      if (event) return event;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`No SSE event within ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.#reader.read(),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`No SSE event within ${timeoutMs} ms`)), remaining))),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error("SSE stream ended");
      this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next `message` event's data, parsed as JSON; events without data (a priming event) are skipped. */
  async nextMessage<T = any>(timeoutMs?: number): Promise<T> {
    for (;;) {
      const event = await this.next(timeoutMs);
      if (event.event === "message" && event.data !== "") return JSON.parse(event.data) as T;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }

  #take(): ReadEvent | undefined {
    for (;;) {
      const end = this.#buffer.search(/\r\n\r\n|\n\n|\r\r/);
      if (end < 0) return undefined;
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith("\r\n", end) ? 4 : 2));
      const event: ReadEvent = { event: "message", data: "" };
      const data: string[] = [];
      let isComment = true;
      for (const line of block.split(/\r\n|\r|\n/)) {
        if (line.startsWith(":")) continue;
        isComment = false;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event.event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") event.id = value;
      }
      if (isComment) {
        this.comments++;
        continue;
      }
      event.data = data.join("\n");
      return event;
    }
  }
}
