/**
 * The shape of every JSON-RPC method a server definition answers, and of a group of them: one feature's
 * methods (tools, resources, prompts, completion) together with the capability `initialize`
 * advertises for it, so that the two cannot disagree.
 */
import type { HomePlan } from "./Home.ts";
import type { RequestContext } from "./RequestContext.ts";

/** A JSON-RPC `result` object. */
export type Result = Record<string, unknown>;

/** Resolves with the `result`; throws `McpError` for a protocol fault. */
export type Method = (params: Record<string, unknown>, ctx: RequestContext) => Promise<Result>;

/** `capabilities` is merged into the server's `ServerCapabilities`; `{}` (and no methods) when the definition lacks the feature. */
export interface MethodGroup {
  capabilities: Result;
  methods: Record<string, Method>;
  /**
   * Where a request to one of these methods runs, when the definition it names has a home of its
   * own (`home: "user"` or a handle); undefined for the request's own session (or none). Absent
   * when no definition of the group has one.
   */
  homeOf?(method: string, params: Record<string, unknown>): HomePlan | undefined;
}

/** A feature the definition does not have: nothing advertised, every method -32601 (completion spec, "Error Handling"). */
export const NO_METHODS: MethodGroup = Object.freeze({ capabilities: Object.freeze({}), methods: Object.freeze({}) });
