/**
 * POST streams that a restart of their host may cut short. A streamed POST
 * is answered by handlers running in memory; if the host is evicted or redeployed before they
 * reply, a client resuming the stream would replay what was stored and then see it end, with
 * neither reply nor error, and wait forever. So while a POST stream is unfinished its request
 * ids are stored under `post:<streamId>`, and a reloaded host settles each such stream: every
 * request without a stored reply gets an error reply, stored as the stream's next event, and
 * the marker goes. Resuming then replays those errors, and the client may retry.
 *
 * Cost: one write when a POST's answer turns into a stream and one delete when it finishes; a
 * POST answered with JSON (the common case) stores nothing.
 */
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { errorReply, type RequestId } from "../jsonrpc/messages.ts";
import type { Logger } from "../log/Logger.ts";
import type { EventStore } from "../outbound/EventStore.ts";
import type { ResumableStream } from "../outbound/ResumableStream.ts";
import type { KeyValueStore } from "../storage/KeyValueStore.ts";

export const POST_PREFIX = "post:";

/** The error a request gets when its host restarted while it ran. */
export function interruptedError(): McpError {
  return new McpError(500, ErrorCode.InternalError, "The server restarted while this request was running, so it did not finish; it may be retried");
}

const decoder = new TextDecoder();

export class UnfinishedPosts {
  readonly #storage: KeyValueStore;
  readonly #log: Logger;

  constructor(storage: KeyValueStore, log: Logger) {
    this.#storage = storage;
    this.#log = log;
  }

  /** Marks a POST stream unfinished; the returned function unmarks it (once its marker is stored). */
  mark(streamId: string, ids: RequestId[]): () => void {
    const stored = this.#storage.put(POST_PREFIX + streamId, ids).then(
      () => true,
      (error: unknown) => (this.#log.warn("post.mark-failed", { stream: streamId, message: String(error) }), false),
    );
    return () => {
      void stored.then((ok) => ok && this.#storage.delete(POST_PREFIX + streamId)).catch((error: unknown) => this.#log.warn("post.unmark-failed", { stream: streamId, message: String(error) }));
    };
  }

  /** After a reload: answers every request left without a reply on a marked stream, then unmarks it. */
  async settle(events: EventStore, streamOf: (streamId: string, lastSeq: number) => ResumableStream): Promise<void> {
    for (const [key, ids] of await this.#storage.list<RequestId[]>(POST_PREFIX)) {
      const streamId = key.slice(POST_PREFIX.length);
      const replied = repliedIds(await events.after(streamId, 0));
      const unanswered = ids.filter((id) => !replied.has(id));
      const stream = streamOf(streamId, events.lastSeq(streamId));
      for (const id of unanswered) await stream.reply(JSON.stringify(errorReply(id, interruptedError())));
      stream.finish();
      await this.#storage.delete(key);
      this.#log.info("post.interrupted", { stream: streamId, unanswered: unanswered.length });
    }
  }
}

/** The ids of the replies among stored SSE frames (each `data:` line is one JSON message). */
function repliedIds(frames: Uint8Array[]): Set<RequestId> {
  const ids = new Set<RequestId>();
  for (const frame of frames) {
    for (const line of decoder.decode(frame).split("\n")) {
      if (!line.startsWith("data: ")) continue;
      const message = JSON.parse(line.slice(6)) as { id?: RequestId; result?: unknown; error?: unknown; method?: string };
      if (message.id !== undefined && message.method === undefined) ids.add(message.id);
    }
  }
  return ids;
}
