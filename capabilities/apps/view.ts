/**
 * `view()`: declares an MCP App's view (SEP-1865 "UI Resource Format"), an HTML document a host
 * renders in a sandboxed iframe, served as a `ui://` resource of type `text/html;profile=mcp-app`.
 * Its security and layout wishes go out as `_meta.ui` on both the listing and the content (hosts
 * read either), with ChatGPT's `openai/widget*` keys beside them (ext-apps `docs/portability.md`).
 *
 * The HTML ships with the server (a string the bundle carries): a view needs no CDN, and its CSP
 * declares only the origins it really reaches. Checked once, when `view()` is called.
 */
import type { ResourceDefinition } from "../../shared/definition/ResourceDefinition.ts";
import type { Home } from "../../shared/definition/Home.ts";
import type { Featured } from "../../shared/definition/Feature.ts";
import { resource } from "../../shared/server/resource.ts";
import { VIEW_MIME_TYPE } from "./appsExtension.ts";

/** The origins a view may reach; each list empty or absent means none (the host's restrictive default). */
export interface ViewCsp {
  /** fetch, XHR and WebSocket (`connect-src`), e.g. "https://api.weather.gov". */
  connectDomains?: readonly string[];
  /** Scripts, styles, images, fonts and media, e.g. "https://cdn.example.com" or "https://*.example.com". */
  resourceDomains?: readonly string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: readonly string[];
  /** `base-uri`. */
  baseUriDomains?: readonly string[];
}

/** Browser features a view asks for; hosts may refuse, so a view checks before it uses one. */
export interface ViewPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

export interface ViewDefinition {
  /** `ui://…`, unique within the server; tools name their view by it. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** The whole HTML5 document. */
  html: string;
  /** The origins it reaches; always sent (empty lists when absent), as ChatGPT requires a CSP. */
  csp?: ViewCsp;
  /** A dedicated sandbox origin, in the format the host documents (e.g. ChatGPT's, Claude's); host-dependent. */
  domain?: string;
  /** Whether the host should draw a border and background around it; hosts differ when absent. */
  prefersBorder?: boolean;
  permissions?: ViewPermissions;
}

/** A checked view: its definition and the resource that serves it. */
export interface View extends Readonly<ViewDefinition> {
  readonly resource: ResourceDefinition<Home> & Featured;
}

const CSP_KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;
/** ChatGPT's names for the same lists (`openai/widgetCSP`); it has none for `base-uri`. */
const OPENAI_CSP_KEYS = { connectDomains: "connect_domains", resourceDomains: "resource_domains", frameDomains: "frame_domains" } as const;
/** An origin, with at most a leading `*.` wildcard label: what CSP source lists accept and hosts honour. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;
const PERMISSIONS = ["camera", "microphone", "geolocation", "clipboardWrite"];

/**
 * @throws TypeError naming what is wrong: a URI not under `ui://`, no HTML, a CSP entry that is not an origin…
 *
 * @example
 * const board = view({ uri: "ui://weather/board.html", name: "Alert board", html: BOARD_HTML,
 *                      csp: { connectDomains: [] }, prefersBorder: true });
 */
export function view(definition: ViewDefinition): View {
  const what = `View ${JSON.stringify(definition?.uri)}`;
  if (typeof definition?.uri !== "string" || !/^ui:\/\/[^\s]+$/.test(definition.uri)) throw new TypeError(`${what}: a view's URI must start with "ui://" (e.g. "ui://weather/board.html")`);
  if (typeof definition.html !== "string" || !/<html[\s>]/i.test(definition.html)) throw new TypeError(`${what}: "html" must be a whole HTML document (with an <html> element)`);
  for (const key of CSP_KEYS) {
    const list = definition.csp?.[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new TypeError(`${what}: csp.${key} must be a list of origins`);
    const bad = list.find((origin) => typeof origin !== "string" || !ORIGIN.test(origin));
    if (bad !== undefined) throw new TypeError(`${what}: csp.${key} has ${JSON.stringify(bad)}, which is not an origin such as "https://api.example.com" or "https://*.example.com"`);
  }
  const unknown = Object.keys(definition.permissions ?? {}).find((key) => !PERMISSIONS.includes(key));
  if (unknown) throw new TypeError(`${what}: permissions.${unknown} is not one of ${PERMISSIONS.join(", ")}`);
  if (definition.domain !== undefined && (typeof definition.domain !== "string" || definition.domain === "")) throw new TypeError(`${what}: "domain" must be a non-empty string`);
  const meta = viewMeta(definition);
  const { uri, name, title, description, html } = definition;
  const served = resource({
    uri,
    name,
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    mimeType: VIEW_MIME_TYPE,
    _meta: meta,
    read: async () => [{ uri, mimeType: VIEW_MIME_TYPE, text: html, _meta: meta }],
  });
  return Object.freeze({ ...definition, resource: served });
}

/** `_meta` of a view's listing and content: `ui` (SEP-1865) and ChatGPT's `openai/widget*`. */
function viewMeta(definition: ViewDefinition): Record<string, unknown> {
  const csp: Record<string, readonly string[]> = { connectDomains: [], resourceDomains: [] };
  const openaiCsp: Record<string, readonly string[]> = { connect_domains: [], resource_domains: [] };
  for (const key of CSP_KEYS) {
    const list = definition.csp?.[key];
    if (!list) continue;
    csp[key] = [...list];
    if (key !== "baseUriDomains") openaiCsp[OPENAI_CSP_KEYS[key]] = [...list];
  }
  const ui: Record<string, unknown> = { csp };
  const meta: Record<string, unknown> = { ui, "openai/widgetCSP": openaiCsp };
  if (definition.permissions) ui.permissions = definition.permissions;
  if (definition.domain !== undefined) {
    ui.domain = definition.domain;
    meta["openai/widgetDomain"] = definition.domain;
  }
  if (definition.prefersBorder !== undefined) {
    ui.prefersBorder = definition.prefersBorder;
    meta["openai/widgetPrefersBorder"] = definition.prefersBorder;
  }
  if (definition.description !== undefined) meta["openai/widgetDescription"] = definition.description;
  return meta;
}
