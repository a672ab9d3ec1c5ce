/** The newline-delimited texts of a byte stream: how a broadcaster's subscriber is read. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        yield buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
