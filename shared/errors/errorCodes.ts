/**
 * JSON-RPC 2.0 and MCP error codes, in one table so that no module invents its own numbers.
 *
 * The -32700…-32600 block is JSON-RPC 2.0 §5.1. The -32000…-32099 block is "server error",
 * reserved for implementation-defined codes; the ones here mirror what the MCP SDKs use so
 * that clients render them sensibly.
 */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available. */
  MethodNotFound: -32601,
  /** Invalid method parameters (also: unknown tool, per the MCP tools spec). */
  InvalidParams: -32602,
  /** Internal error: a bug of ours, never caused by input. */
  InternalError: -32603,
  /** The session cannot take more work right now (its outbound queue is full). */
  ServerBusy: -32000,
  /** A handler ran past its deadline and was aborted. */
  RequestTimeout: -32001,
  /** `resources/read` (or `resources/subscribe`) named a URI the server does not serve (MCP resources spec, "Error Handling"). */
  ResourceNotFound: -32002,
  /** 2026-07-28: an `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` header is missing, malformed, or disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` did not declare; `data.requiredCapabilities` says which. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request's protocol version is not served here; `data.supported` lists what is. */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];
