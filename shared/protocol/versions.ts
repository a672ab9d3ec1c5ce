/**
 * MCP protocol revisions this server speaks, and version negotiation.
 *
 * Negotiation follows the lifecycle spec (2024-11-05 … 2025-11-25, "Version Negotiation"): if the
 * server supports the version the client requested it MUST answer with that version, otherwise
 * it answers with another version it supports, which SHOULD be its latest. It is independent of
 * the transport: a client on the legacy HTTP+SSE endpoint that asks for 2025-06-18 gets it.
 *
 * The stateless 2026-07-28 revision has no `initialize` and no negotiation: each request names
 * its version in `_meta`, and a version we do not serve is refused (`MODERN_PROTOCOL_VERSIONS`).
 */

/** Oldest first. Every message this server sends is valid in each of them. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** Revisions with per-request versions and no sessions (2026-07-28 "Versioning": "Modern"). */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;

export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

export function isModernVersion(version: unknown): version is ModernProtocolVersion {
  return (MODERN_PROTOCOL_VERSIONS as readonly unknown[]).includes(version);
}

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = "2025-11-25";

/** What a session that never completed `initialize` is treated as (the oldest: the safest shapes). */
export const DEFAULT_PROTOCOL_VERSION: ProtocolVersion = "2024-11-05";

export function isSupportedVersion(version: unknown): version is ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(version);
}

/**
 * @example negotiateVersion("2024-11-05") // "2024-11-05"
 * @example negotiateVersion("1999-01-01") // LATEST_PROTOCOL_VERSION
 */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
