/**
 * `durable-mcp/transport`: the parts for serving a server definition over a transport of your
 * own, or for hosting sessions somewhere new. Most transports need only the first group: adapt
 * the connection to a `MessageStream` (two web streams of JSON texts) and call `serveMessages`.
 */

// A transport that carries whole messages (a WebSocket, a TCP socket with a framing of yours)
export { type MessageStream, serveMessages, type ServeMessagesOptions } from "./transport/serveMessages.ts";
// …and, where its API has no backpressure (a WebSocket), the bounded queue the session's own streams use
export { type Frame, frameSize, OutboundQueue } from "./outbound/OutboundQueue.ts";
export { QueueBudget, type QueueLimits } from "./outbound/QueueBudget.ts";

// A transport whose client's messages travel over several connections (as HTTP's do)
export type { Refusal, ReplyChannel, Transport, TransportLink, TransportType } from "./session/Transport.ts";
export type { Outlet } from "./exchange/Exchange.ts";
export { Session, type SessionDeps } from "./session/Session.ts";
export { SingleStreamTransport } from "./transport/SingleStreamTransport.ts";
export { StreamableHttpTransport } from "./transport/StreamableHttpTransport.ts";

// Hosting sessions and serving HTTP on a runtime of your own
export { createRouter, type BeforeStage, type Platform, type Route, type RouterOptions } from "./routes/createRouter.ts";
export type { SessionOperation, Sessions } from "./host/SessionOperation.ts";
export { SessionHost } from "./host/SessionHost.ts";
export { LocalSessions, type LocalSessionsOptions } from "./host/LocalSessions.ts";
export type { Broadcaster } from "./broadcast/Broadcaster.ts";
export { MemoryBroadcaster } from "./broadcast/MemoryBroadcaster.ts";
export { MemoryStorage } from "./storage/MemoryStorage.ts";
export type { KeyValueStore } from "./storage/KeyValueStore.ts";
export { type Config, DEFAULT_CONFIG, readConfig } from "./config/readConfig.ts";
export { Logger, type LogSink, stderrSink } from "./log/Logger.ts";
