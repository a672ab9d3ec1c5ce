/**
 * `durable-mcp/transport`: serving a server definition over a transport of your own. Adapt the
 * connection to a `MessageStream` (two web streams of JSON texts) and call `serveMessages`; where
 * the connection's API has no backpressure (a WebSocket), bound what waits unread with the same
 * queue and budget the session's own streams use, sized by the deployment's configuration.
 *
 * Unstable: these follow the session core, and may change in a minor release (the CHANGELOG says
 * how). The runtimes' own parts (sessions, hosts, routes) are not exported.
 *
 * @example
 * import { readConfig, serveMessages } from "durable-mcp/transport";
 * await serveMessages({ server, kind: "websocket", messages: webSocketMessages(socket, readConfig(env)), env });
 */
export { type MessageStream, serveMessages, type ServeMessagesOptions } from "./transport/serveMessages.ts";
export { type Frame, frameSize, OutboundQueue } from "./outbound/OutboundQueue.ts";
export { QueueBudget, type QueueLimits } from "./outbound/QueueBudget.ts";
export { type Config, DEFAULT_CONFIG, readConfig } from "./config/readConfig.ts";
