/**
 * The methods that change a session's state, so they live with the session and not with the
 * server definition: `initialize` (lifecycle spec: what was negotiated is remembered),
 * `logging/setLevel` (the threshold for this session's log notifications), and
 * `resources/subscribe` / `resources/unsubscribe` (which updates this session hears). Plus
 * `ping`, which every session answers. Each persists what it changes before it answers.
 *
 * 2026-07-28 has none of them: it has no session (they answer -32601 there).
 */
import { utf8Length } from "../bytes/utf8Length.ts";
import { McpError } from "../errors/McpError.ts";
import type { Logger } from "../log/Logger.ts";
import { isLogLevel } from "../protocol/logLevels.ts";
import type { Method } from "../definition/Method.ts";
import { requireUri } from "../methods/resourceMethods.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import type { SessionRecord } from "./SessionRecord.ts";

/** Resource subscriptions one session may hold: bounds the record's size (with `MAX_RECORD_BYTES`). */
export const MAX_SUBSCRIPTIONS = 1_000;
/** The most a client's `clientInfo` and `capabilities` may take, as UTF-8 JSON: they are kept in the session record. */
export const MAX_CLIENT_DESCRIPTION_BYTES = 16 * 1024;

/** What the methods may read and change of their session. */
export interface SessionState {
  readonly server: CompiledServer;
  readonly record: Readonly<SessionRecord>;
  readonly log: Logger;
  /** Changes the record and stores it. */
  update(patch: Partial<SessionRecord>): Promise<void>;
}

export function sessionMethods(state: SessionState): Record<string, Method> {
  const resourcesOnly = (method: string) => {
    // A server without resources has no subscriptions to offer (resources spec, "Capabilities").
    if (!state.server.has("resources")) throw McpError.methodNotFound(method);
  };
  return {
    initialize: async (params) => {
      const described = utf8Length(JSON.stringify([params.clientInfo ?? null, params.capabilities ?? null]));
      if (described > MAX_CLIENT_DESCRIPTION_BYTES) {
        throw McpError.invalidParams(`initialize's clientInfo and capabilities take ${described} bytes as JSON; at most ${MAX_CLIENT_DESCRIPTION_BYTES} are accepted`);
      }
      const { result, negotiated } = state.server.initialize(params);
      await state.update(negotiated);
      state.log.info("session.initialized", { protocolVersion: negotiated.protocolVersion, client: negotiated.clientInfo?.name });
      return result;
    },
    ping: async () => ({}),
    "logging/setLevel": async (params) => {
      if (!isLogLevel(params.level)) throw McpError.invalidParams(`Invalid log level: ${JSON.stringify(params.level)}`);
      await state.update({ logLevel: params.level });
      return {};
    },
    // Only a URI the server can read may be subscribed to ("Servers MUST validate all resource URIs").
    "resources/subscribe": async (params, ctx) => {
      resourcesOnly("resources/subscribe");
      const uri = requireUri(params, "resources/subscribe");
      if (!state.server.resolvesResource(uri, ctx)) throw McpError.resourceNotFound(uri);
      const current = state.record.subscriptions ?? [];
      if (current.includes(uri)) return {};
      if (current.length >= MAX_SUBSCRIPTIONS) throw McpError.invalidParams(`A session may subscribe to at most ${MAX_SUBSCRIPTIONS} resources`);
      await state.update({ subscriptions: [...current, uri] });
      return {};
    },
    // Unsubscribing is idempotent: an unknown URI is simply not subscribed.
    "resources/unsubscribe": async (params) => {
      resourcesOnly("resources/unsubscribe");
      const uri = requireUri(params, "resources/unsubscribe");
      const current = state.record.subscriptions ?? [];
      if (current.includes(uri)) await state.update({ subscriptions: current.filter((u) => u !== uri) });
      return {};
    },
  };
}
