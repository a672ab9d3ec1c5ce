/**
 * `GET /` for a person with a browser: one small HTML page that says what this server
 * is, what an anonymous client is listed (`anonymousListing`), its endpoints and protocol
 * versions, and how to connect Claude, ChatGPT, Cursor, VS Code and the Inspector to it, with the
 * URL filled in. Why the definition cannot be served, and any warning, come first. Every other
 * request for `GET /` gets `describeServer`'s JSON, which also has the limits.
 *
 * Safe with any definition and any request: every value is escaped (names and descriptions are
 * the author's, the origin is the request's), and the page has no script — its CSP allows only
 * its own inline style. Every Worker ships this module, so it stays small: no schemas, no icons.
 */
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { Result } from "../definition/Method.ts";
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { isLoopbackHost } from "../http/originPolicy.ts";
import { anonymousListing } from "./anonymousListing.ts";

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  // The same URL answers JSON to programs (`describeServer`): caches must keep the two apart.
  vary: "Accept",
};

/** `color-scheme` gives the browser's own light or dark colours (`prefers-color-scheme`); the rest reads on a phone. */
const STYLE =
  ":root{color-scheme:light dark}body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:auto;padding:1rem}" +
  "code,pre{font:.9em ui-monospace,monospace;background:#8882;overflow-wrap:anywhere}pre{padding:.5em;white-space:pre-wrap}" +
  "dt{font-weight:600}li,dd{margin:0 0 .6em}.m{opacity:.75}.d{opacity:.75;white-space:pre-line}.x{border:2px solid #d33;padding:.5em 1em}";

/**
 * `origin`: the request's own, from the URL the router accepted (its Host checked); the MCP URL
 * is `${origin}/mcp`. `deployment`: the router's `Services`, or what of them a test gives: its
 * `problem` and `warnings`, and the `env` the listing's handlers see as `ctx.env`.
 *
 * @example await serverPage(definition, new URL(request.url).origin, routes, services)
 */
export async function serverPage(definition: CompiledServer, origin: string, routes: readonly { method: string; path: string; description: string }[], deployment: { problem?: Error; warnings?: readonly string[]; runtime?: { env: ServerEnv } } = {}): Promise<Response> {
  const { problem, warnings = [] } = deployment;
  const env = deployment.runtime?.env ?? {};
  const { name, version, title } = definition.info;
  const { tools, prompts, resources, resourceTemplates } = await anonymousListing(definition, env);
  const heading = h(title ?? name);
  const url = `${origin}/mcp`;
  const u = `<code>${h(url)}</code>`;
  // A name for the client's configuration that is also one shell word.
  const key = name.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || "mcp";
  const pre = (text: string) => `<pre>${h(text)}</pre>`;
  const json = (value: unknown) => pre(JSON.stringify(value, null, 2));
  const html = [
    `<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content="width=device-width,initial-scale=1">`,
    `<title>${heading} · MCP server</title><style>${STYLE}</style>`,
    `<h1>${heading}</h1><p class=m>${title ? `${h(name)} ` : ""}${h(version)} · an MCP server</p>`,
    problem ? `<p class=x><b>This server cannot be used:</b> ${h(problem.message)}</p>` : "",
    ...warnings.map((warning) => `<p class=x>${h(warning)}</p>`),
    `<h2>Connect</h2><p>MCP URL: ${u}<br>Older clients (HTTP+SSE): <code>${h(origin)}/sse</code></p>`,
    // Hosted clients connect from their own servers: a loopback URL pasted there reaches nothing.
    isLoopbackOrigin(origin)
      ? `<p class=x>This URL is on this machine: claude.ai and ChatGPT connect from their own servers and cannot reach it. Deploy first, or expose it through a tunnel (e.g. <code>cloudflared tunnel --url ${h(origin)}</code>), and paste that URL.</p>`
      : "",
    "<dl>",
    `<dt>Claude (claude.ai, Desktop)<dd>Settings → Connectors → Add custom connector: paste ${u}`,
    `<dt>Claude Code<dd>${pre(`claude mcp add --transport http ${key} ${shellWord(url)}`)}`,
    `<dt>ChatGPT<dd>Settings → Apps &amp; Connectors → Advanced → Developer mode; then create a connector with ${u}`,
    `<dt>Cursor<dd><code>~/.cursor/mcp.json</code>${json({ mcpServers: { [key]: { url } } })}`,
    `<dt>VS Code<dd><code>.vscode/mcp.json</code>${json({ servers: { [key]: { type: "http", url } } })}`,
    `<dt>MCP Inspector<dd>${pre("npx @modelcontextprotocol/inspector")}Transport Streamable HTTP, URL ${u}</dl>`,
    list("Tools", tools, "name"),
    list("Prompts", prompts, "name"),
    list("Resources", resources, "uri"),
    list("Resource templates", resourceTemplates, "uriTemplate"),
    `<h2>Endpoints</h2><ul>${routes.map((r) => `<li><code>${h(r.method)} ${h(r.path)}</code> ${h(r.description)}`).join("")}</ul>`,
    `<p class=m>Protocol versions ${h([...SUPPORTED_PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS].join(", "))}. Programs get this page as JSON.</p>`,
  ];
  return new Response(html.join(""), { headers: HEADERS });
}

/** One listing: each entry by its id (a name or URI), its title (or a resource's name) and description; nothing when empty. */
function list(heading: string, entries: readonly Result[], id: string): string {
  if (entries.length === 0) return "";
  const items = entries.map((entry) => {
    const label = entry.title ?? (id === "name" ? undefined : entry.name);
    return `<li><code>${h(entry[id])}</code>${label ? ` <b>${h(label)}</b>` : ""}${entry.description ? `<div class=d>${h(entry.description)}</div>` : ""}`;
  });
  return `<h2>${heading}</h2><ul>${items.join("")}</ul>`;
}

/** HTML-escaped text, safe in an element and in a quoted attribute. */
function h(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `text` as one POSIX shell word: as is when plain, else single-quoted (a Host can carry `$` or `;`). */
function shellWord(text: string): string {
  return /^[\w:/.@%+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Whether `origin` names this machine; false for one that does not parse (the page still shows, escaped). */
function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}
