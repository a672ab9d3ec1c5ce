/**
 * Fan-out of change notifications across Worker isolates: one Durable Object per topic (what is
 * watched: `tools`, `prompts`, `resources`, or `resource:<uri>`), found by `idFromName(topic)`, so
 * every isolate that publishes or listens on a topic reaches the same object.
 *
 * A listener is a WebSocket the object accepts for hibernation: the Worker serving a
 * `subscriptions/listen` request opens it (`fetch` with `Upgrade: websocket`), and holds the
 * listener's queue itself (`Subscriber`, bounded by MAX_QUEUE_BYTES per listener: one that falls
 * behind is ended there). The object's name is its topic, so every socket it holds listens to
 * that topic: sockets are not tagged with it, nor is it sent in a header. A topic is as long as
 * any URI the server accepts (`resource:` + up to MAX_URI_CHARS characters, any of Unicode),
 * where a tag holds at most 256 characters and a header value is bytes. The object keeps no
 * queue, no storage, no alarm and no timer: nothing in memory grows with its listeners, and with
 * no publish under way it hibernates, however many listen.
 *
 * Cost. Publishing is one RPC from the publishing isolate to the topic's object (waking it if it
 * hibernated), then one socket send per listener. An idle listener costs the object no duration.
 * Messages published while a listener is reconnecting are not replayed: 2026-07-28 listen
 * streams are not resumable, and a client re-fetches the list after it listens again.
 */
import { DurableObject } from "cloudflare:workers";
import type { Broadcaster } from "../../../shared/broadcast/Broadcaster.ts";
import { ErrorCode } from "../../../shared/errors/errorCodes.ts";
import { McpError } from "../../../shared/errors/McpError.ts";
import { errorResponse } from "../../../shared/http/errorResponse.ts";
import { closeBack, sendLine } from "../../../durable/sockets.ts";
import { followSocket } from "../../../durable/followSocket.ts";
import type { ServerEnv } from "../../../shared/definition/RequestContext.ts";

const WATCH_URL = "https://watch.internal/listen";

export class WatchObject extends DurableObject<ServerEnv> {
  /** A listener's socket: the Worker's upgrade, listening to this object's topic. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return errorResponse(new McpError(400, ErrorCode.InvalidRequest, "A watch object takes listeners only, as WebSocket upgrades"));
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Sends `message` to every listener of this object's topic. */
  async publish(message: object): Promise<void> {
    sendLine(this.ctx.getWebSockets(), message);
  }

  /** Listeners of this object's topic now; for tests and operators. */
  async subscribers(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    closeBack(socket, code, reason);
  }
}

/**
 * The `Broadcaster` a Worker uses when `MCP_WATCH` is bound: every isolate reaches the same topic
 * objects. Each subscription is a socket to its topic's object, read into a `Subscriber` of at
 * most `maxBytes` unread; ending either ends the other.
 */
export function durableBroadcaster(namespace: DurableObjectNamespace<WatchObject>, maxBytes: number): Broadcaster {
  const stub = (topic: string) => namespace.get(namespace.idFromName(topic));
  return {
    publish: (topic, message) => stub(topic).publish(message),
    async subscribe(topic, signal) {
      const upgraded = await stub(topic).fetch(WATCH_URL, { headers: { upgrade: "websocket" } });
      const socket = upgraded.webSocket;
      if (!socket) throw new Error(`The watch object of ${JSON.stringify(topic)} refused a listener: HTTP ${upgraded.status}`);
      return followSocket(socket, maxBytes, signal);
    },
  };
}
