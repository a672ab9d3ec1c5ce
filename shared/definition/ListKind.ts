/**
 * Per-session lists: a tool, prompt, resource or resource template declared with `enabled`
 * (its state when a session starts) can be switched on or off for one session from inside a
 * handler (`ctx.session.setEnabled`), e.g. a `login` tool that reveals the tools a signed-in user may
 * call. Each switch that changes a listing sends the matching `notifications/…/list_changed`
 * (tools, prompts and resources specs, "List Changed Notification").
 *
 * A session stores only its differences from the declared states (`Overrides`, in its record),
 * so a redeploy that changes a declared state applies to every session that never switched it.
 * A definition without `enabled` is always on and cannot be switched; a feature with no
 * switchable definition advertises `listChanged: false` and never sends the notification.
 */
import { grants } from "../auth/grants.ts";

/** What `ctx.setEnabled` switches. Tools and prompts go by name, resources by URI, templates by `uriTemplate`. */
export type ListKind = "tool" | "prompt" | "resource" | "resourceTemplate";

/** A feature whose list can change: what `ctx.listChanged` and `subscriptions/listen` speak of. */
export type ListFeature = "tools" | "prompts" | "resources";

/** The notification each feature's list change sends. */
export const LIST_CHANGED_METHOD: Readonly<Record<ListFeature, string>> = {
  tools: "notifications/tools/list_changed",
  prompts: "notifications/prompts/list_changed",
  resources: "notifications/resources/list_changed",
};

/** The feature each kind belongs to; templates are part of the resources listing. */
export const FEATURE_OF: Readonly<Record<ListKind, ListFeature>> = { tool: "tools", prompt: "prompts", resource: "resources", resourceTemplate: "resources" };

/** A session's switched states, keyed by `toggleKey`; only keys whose state differs from the declared one. */
export type Overrides = Readonly<Record<string, boolean>>;

export function toggleKey(kind: ListKind, id: string): string {
  return `${kind}:${id}`;
}

/** What deciding whether a definition is offered needs of a request: its session's switches (if it has a session) and the scopes its token grants (if the server checks tokens). */
export interface SwitchView {
  readonly session?: { isEnabled(kind: ListKind, id: string): boolean };
  readonly auth?: { readonly scopes: readonly string[] };
}

/** What a definition declares about when it is offered. */
export interface Gated {
  /** Switchable per session, starting in this state (see the module header). */
  enabled?: boolean;
  /** The OAuth scopes a request's token must grant for it to be listed or used. */
  scopes?: readonly string[];
}

/**
 * Whether a definition is offered to this request: listed, and usable. It must be on — always,
 * unless it declared `enabled`; then as its session switched it, or as declared where there is
 * no session (2026-07-28: the same for all) — and the request's token must grant every scope it
 * declares. A definition that declares scopes is never offered without a token (stdio, or a
 * server without authorization): an unchecked request cannot hold a scope.
 */
export function isOffered(kind: ListKind, id: string, definition: Gated, ctx: SwitchView): boolean {
  if (!grants(ctx.auth, definition.scopes)) return false;
  return definition.enabled === undefined || (ctx.session ? ctx.session.isEnabled(kind, id) : definition.enabled);
}

/** A definition's state in a session that switched some (`overrides`), given its declared state. */
export function switchedState(kind: ListKind, id: string, declared: boolean | undefined, overrides: Overrides): boolean {
  return declared === undefined ? true : (overrides[toggleKey(kind, id)] ?? declared);
}

/** `listChanged` for a feature's capability: true once any of its definitions may be switched. */
export function switchable(definitions: readonly { enabled?: boolean }[]): boolean {
  return definitions.some((d) => d.enabled !== undefined);
}

/**
 * A session's switched states after `kind`/`id` is switched to `enabled`, storing only differences
 * from the declared state (so a redeploy that changes it applies to untouched sessions);
 * undefined when its state would not change.
 *
 * @throws TypeError for a definition not declared with `enabled` (`declared` undefined).
 */
export function switchOverrides(overrides: Overrides, kind: ListKind, id: string, enabled: boolean, declared: boolean | undefined): Overrides | undefined {
  if (declared === undefined) throw new TypeError(`The ${kind} ${JSON.stringify(id)} cannot be switched: only a ${kind} declared with "enabled: true|false" can`);
  const key = toggleKey(kind, id);
  if ((overrides[key] ?? declared) === enabled) return undefined;
  const { [key]: _previous, ...rest } = overrides;
  return enabled === declared ? rest : { ...rest, [key]: enabled };
}
