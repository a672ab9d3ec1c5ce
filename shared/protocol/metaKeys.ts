/**
 * The `_meta` keys the 2026-07-28 revision reserves (basic spec, "_meta"): what a request says
 * about its client, what a result says about the server, and the tag of a subscription's
 * notifications. Spelled once, here.
 */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;
