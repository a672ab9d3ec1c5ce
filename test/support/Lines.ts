/**
 * Test helper: a broadcaster's stream read as JSON lines. `take(n)` waits for the next `n` (failing
 * after `withinMs` with what it had), `rest()` reads to the end. One reader for the stream's life.
 */
const decoder = new TextDecoder();

export class Lines {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffered = "";
  #ready: unknown[] = [];

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** The next `count` messages; rejects if the stream ends first or they take longer than `withinMs`. */
  async take(count: number, withinMs = 15_000): Promise<unknown[]> {
    const deadline = Date.now() + withinMs;
    while (this.#ready.length < count) {
      const left = deadline - Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), Math.max(0, left))));
      const next = await Promise.race([this.#reader.read(), late]);
      clearTimeout(timer);
      if (next === "late") throw new Error(`had ${this.#ready.length} of ${count} messages after ${withinMs} ms: ${JSON.stringify(this.#ready).slice(0, 500)}`);
      if (next.done) throw new Error(`the stream ended after ${this.#ready.length} of ${count} messages: ${JSON.stringify(this.#ready).slice(0, 500)}`);
      this.#add(next.value);
    }
    return this.#ready.splice(0, count);
  }

  /** Every message left until the stream ends. */
  async rest(): Promise<unknown[]> {
    for (;;) {
      const next = await this.#reader.read();
      if (next.done) return this.#ready.splice(0);
      this.#add(next.value);
    }
  }

  #add(chunk: Uint8Array): void {
    this.#buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = this.#buffered.indexOf("\n")) >= 0) {
      this.#ready.push(JSON.parse(this.#buffered.slice(0, newline)));
      this.#buffered = this.#buffered.slice(newline + 1);
    }
  }
}
