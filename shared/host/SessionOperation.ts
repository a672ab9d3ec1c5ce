/**
 * One entry into a session, whoever hosts it: the HTTP routes turn each request that needs a
 * session into one of these values (the body parsed once, by the Worker or the process that
 * received it) and hand it to `Sessions.apply`, which carries it to the session's host — a
 * Durable Object over RPC, or a map lookup in process — where `SessionHost.apply` answers it.
 *
 * Plain data, so it crosses any boundary as it is.
 */
import type { JsonRpcMessage } from "../jsonrpc/messages.ts";

// `size` is the body's text length (`Parsed.size`): the session reserves it while its requests are in flight.
// `relayed`: the stream is carried to its client by a relay that keeps it alive (the Worker, over
// a hibernatable WebSocket), so the host sends no keepalives of its own and holds no timer for it.

export type SessionOperation =
  /** `GET /sse`: create a legacy session (or reopen one), answered with its stream; `endpoint` is the first event's URL. */
  | { kind: "open"; sessionId: string; create: boolean; endpoint: string; relayed?: boolean }
  /** `POST /message`: one batch for a legacy session; 202, and replies on its stream. */
  | { kind: "deliver"; sessionId: string; messages: JsonRpcMessage[]; size: number }
  /** `POST /mcp`: one batch for a Streamable HTTP session; `create` for `initialize`, which starts one. */
  | { kind: "post"; sessionId: string; messages: JsonRpcMessage[]; size: number; create: boolean }
  /** `GET /mcp`: the standalone stream, or a resumed one after `Last-Event-ID`. */
  | { kind: "stream"; sessionId: string; lastEventId: string | null; relayed?: boolean }
  /** `DELETE /mcp`: the client ends the session. */
  | { kind: "end"; sessionId: string };

/** Where sessions live, as the routes see them: the same id always reaches the same session. */
export interface Sessions {
  apply(operation: SessionOperation): Promise<Response>;
}
