/**
 * The bench's SSE reader for raw `node:http` responses (which it pauses and resumes at will):
 * a `data` listener that calls `onEvent(event, data)` for each complete named event. Comments
 * (keepalives) and unnamed blocks are skipped.
 *
 * @example res.setEncoding("utf8"); res.on("data", sseEvents((event, data) => console.log(event, data)));
 */
export function sseEvents(onEvent) {
  let buffer = "";
  return (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const lines = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const named = lines.find((line) => line.startsWith("event: "));
      if (!named) continue;
      onEvent(named.slice("event: ".length), lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice("data: ".length)).join("\n"));
    }
  };
}
