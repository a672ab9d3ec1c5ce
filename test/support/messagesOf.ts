/**
 * Test helper: the JSON-RPC messages of a `POST /mcp` answer, whichever form the server chose —
 * one JSON body, or an SSE stream read to its end (events without data, such as the priming
 * event, carry none).
 *
 * @example const [reply] = await messagesOf(await fetch(url, { method: "POST", ... }));
 */
export async function messagesOf(response: Response): Promise<any[]> {
  const text = await response.text();
  if (response.headers.get("content-type")?.includes("application/json")) return [JSON.parse(text)].flat();
  return text.split(/\r?\n\r?\n/).flatMap((block) => {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    return data ? [JSON.parse(data)] : [];
  });
}
