/**
 * The persisted part of a session: everything needed to continue it in a fresh process (after a
 * Durable Object eviction, a deploy, a Deno restart). Stored under one key, `SESSION_KEY`;
 * handler data lives beside it under `DATA_PREFIX`, so the two can never collide.
 */
import type { LogLevel } from "../protocol/logLevels.ts";
import type { ProtocolVersion } from "../protocol/versions.ts";
import type { Overrides } from "../server/ListKind.ts";
import type { Implementation } from "../server/types.ts";

export const SESSION_KEY = "session";
export const DATA_PREFIX = "data:";

export interface SessionRecord {
  id: string;
  /** The `kind` of its transport type: "sse", "streamable", "stdio", or a transport of yours. */
  transport: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Set by `initialize`; absent until then. */
  protocolVersion?: ProtocolVersion;
  clientInfo?: Implementation;
  clientCapabilities?: Record<string, unknown>;
  /** The client's `logging/setLevel` threshold; no log notifications until it sets one. */
  logLevel?: LogLevel;
  /** Resource URIs the client subscribed to (`resources/subscribe`). */
  subscriptions?: string[];
  /** Definitions switched by `ctx.setEnabled`, where they differ from their declared state. */
  overrides?: Overrides;
}
