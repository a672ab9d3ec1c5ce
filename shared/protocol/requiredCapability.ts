/**
 * The client capability a server-to-client request needs (lifecycle spec, "Capability
 * Negotiation"; 2026-07-28 "MissingRequiredClientCapability"): one rule for both eras, which
 * differ only in how they report a miss (a handler error on 2025 sessions, -32021 on 2026).
 */

/** `undefined` when `capabilities` allow `method`; otherwise the `requiredCapabilities` the client lacks. */
export function requiredCapability(method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const declared = capabilities ?? {};
  switch (method) {
    case "sampling/createMessage":
      return "sampling" in declared ? undefined : { sampling: {} };
    case "roots/list":
      return "roots" in declared ? undefined : { roots: {} };
    case "elicitation/create": {
      const elicitation = declared.elicitation;
      if (elicitation === null || typeof elicitation !== "object") return { elicitation: params.mode === "url" ? { url: {} } : {} };
      // An empty `elicitation: {}` means form mode only (elicitation spec, "Capabilities").
      const modes = elicitation as Record<string, unknown>;
      if (params.mode === "url") return "url" in modes ? undefined : { elicitation: { url: {} } };
      return Object.keys(modes).length === 0 || "form" in modes ? undefined : { elicitation: { form: {} } };
    }
    default:
      throw new TypeError(`${method} is not a request a server sends to a client`);
  }
}

/** One sentence for a handler's error on a 2025-era session. */
export function describeMissing(method: string, missing: Record<string, unknown>): string {
  return `The client did not declare the capability ${JSON.stringify(missing)}, so ${method} cannot be sent`;
}
