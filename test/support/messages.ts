/**
 * JSON-RPC messages the tests send, built one way for every harness: workerd's `SELF.fetch`
 * (`test/runtime/helpers.ts`) and real HTTP (`test/support/httpSession.ts`).
 */

/** An `initialize` from the client the seed captured (Cline 3.15.5), asking for `protocolVersion`. */
export const initialize = (id: number | string = 0, protocolVersion = "2024-11-05") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "Cline", version: "3.15.5" } },
});

export const call = (id: number | string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: meta ? { name, arguments: args, _meta: meta } : { name, arguments: args },
});
