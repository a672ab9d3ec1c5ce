/**
 * One entry into a session, whoever hosts it: the HTTP routes turn each request that needs a
 * session into one of these values (the body checked once, by the Worker or the process that
 * received it) and hand it to `Sessions.apply`, which carries it to the session's host — a
 * Durable Object over RPC, or a map lookup in process — where `SessionHost.apply` answers it.
 *
 * Plain data, so it crosses any boundary as it is.
 */
import type { Principal } from "../auth/Principal.ts";
import type { JsonRpcMessage, RequestId } from "../jsonrpc/messages.ts";
import type { HopTrace } from "../telemetry/Telemetry.ts";

// `owner` is the digest of the request's principal (`callerOf`) where the server checks tokens: a
// session is created for it and answers no other (404, as if it did not exist). `auth` is the
// principal itself, for the handlers the operation starts (`ctx.auth`); streams start none, so
// their operations (which travel in a header to the object) carry only the digest.
// `size` is the body's text length (`Parsed.size`): the session reserves it while its requests are in flight.
// `deliver` carries the body's bytes as the route read and checked them, and its requests' ids, not
// the parse: over RPC, bytes are one flat copy outside the JavaScript heap, and the session decides
// admission from the ids alone, parsing the body only once it takes the batch (a refused one is never parsed there).
// `shareKey`: whom a session being created counts against (`clientKey`: the principal, else the address), for fair shares.
// `trace`: where tracing is on, the hop's span and the HTTP request's own context, for the spans of the requests it carries.
// `relayed`: the stream is carried to its client by a relay that keeps it alive (the Worker, over
// a hibernatable WebSocket), so the host sends no keepalives of its own and holds no timer for it.

export type SessionOperation =
  /** `GET /sse`: create a legacy session (or reopen one), answered with its stream; `endpoint` is the first event's URL. */
  | { kind: "open"; sessionId: string; create: boolean; endpoint: string; relayed?: boolean; owner?: string; shareKey?: string }
  /** `POST /message`: one batch for a legacy session; 202, and replies on its stream. */
  | { kind: "deliver"; sessionId: string; body: Uint8Array; requests: RequestId[]; size: number; owner?: string; auth?: Principal; trace?: HopTrace }
  /** `POST /mcp`: one batch for a Streamable HTTP session; `create` for `initialize`, which starts one. */
  | { kind: "post"; sessionId: string; messages: JsonRpcMessage[]; size: number; create: boolean; owner?: string; auth?: Principal; shareKey?: string; trace?: HopTrace }
  /** `GET /mcp`: the standalone stream, or a resumed one after `Last-Event-ID`. */
  | { kind: "stream"; sessionId: string; lastEventId: string | null; relayed?: boolean; owner?: string }
  /** `DELETE /mcp`: the client ends the session. */
  | { kind: "end"; sessionId: string; owner?: string };

/** Where sessions live, as the routes see them: the same id always reaches the same session. */
export interface Sessions {
  apply(operation: SessionOperation): Promise<Response>;
  /** Sessions live elsewhere (a Durable Object): a request's trip there gets a span of its own. */
  readonly remote?: boolean;
}
