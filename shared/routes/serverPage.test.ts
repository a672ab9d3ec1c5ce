/**
 * The page for people at `GET /`, built alone: what it shows, what it keeps out (what an
 * anonymous client is not listed), and that nothing the author or the request supplies becomes markup.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apps } from "../../capabilities/apps/apps.ts";
import { view } from "../../capabilities/apps/view.ts";
import { tool } from "../server/defineServer.ts";
import { prompt } from "../server/prompt.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { anonymousListing } from "./anonymousListing.ts";
import { serverPage } from "./serverPage.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const ORIGIN = "http://127.0.0.1:8787";
const ROUTES = [{ method: "GET", path: "/health", description: "liveness" }];
const text = async () => [{ role: "user" as const, content: { type: "text" as const, text: "hi" } }];
const board = view({ uri: "ui://t/board.html", name: "board", html: "<!DOCTYPE html><html><body>board</body></html>" });

const server = new CompiledServer({
  name: "page-test",
  version: "1.2.3",
  title: "Page Test",
  tools: [
    tool({ name: "shown", title: "Shown Tool", description: "Always listed", input: z.object({}), handler: async () => "" }),
    tool({ name: "switchedOn", description: "Declared on", enabled: true, input: z.object({}), handler: async () => "" }),
    tool({ name: "switchedOff", description: "Declared off", enabled: false, input: z.object({}), handler: async () => "" }),
    tool({ name: "scoped", description: "Needs a scope", scopes: ["admin"], input: z.object({}), handler: async () => "" }),
    tool({ name: "boardTool", description: "Has a view", ui: { view: board.uri }, input: z.object({}), handler: async () => "" }),
    tool({ name: "appOnly", description: "Only for the view", ui: { view: board.uri, visibility: ["app"] }, input: z.object({}), handler: async () => "" }),
  ],
  prompts: [prompt({ name: "greet", description: "Says hi", get: text }), prompt({ name: "hiddenPrompt", enabled: false, get: text })],
  resources: [resource({ uri: "docs://readme", name: "readme", title: "Read me", read: async () => "" }), resource({ uri: "docs://secret", name: "secret", scopes: ["hr"], read: async () => "" })],
  resourceTemplates: [resourceTemplate({ uriTemplate: "docs://pages/{page}", name: "page", read: async ({ page }) => page }), resourceTemplate({ uriTemplate: "docs://off/{id}", name: "off", enabled: false, read: async ({ id }) => id })],
  use: [apps({ views: [board] })],
});

/** The page's text, near enough as a person reads it: tags dropped, the escapes undone. */
const visible = (html: string) =>
  html
    .replace(/<style>.*?<\/style>|<title>.*?<\/title>/gs, "")
    .replace(/<[^>]+>/g, "")
    .replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, "&");

describe("serverPage", () => {
  it("on a loopback origin, says claude.ai and ChatGPT cannot reach this URL: deploy or tunnel first; elsewhere says nothing of it", async () => {
    const local = visible(await (await serverPage(server, ORIGIN, ROUTES)).text());
    expect(local).toContain("This URL is on this machine: claude.ai and ChatGPT connect from their own servers and cannot reach it. Deploy first, or expose it through a tunnel (e.g. cloudflared tunnel --url http://127.0.0.1:8787), and paste that URL.");
    for (const origin of ["http://localhost:3000", "http://[::1]:8787"]) expect(visible(await (await serverPage(server, origin, ROUTES)).text())).toContain("This URL is on this machine");
    expect(visible(await (await serverPage(server, "https://mcp.example.com", ROUTES)).text())).not.toContain("This URL is on this machine");
  });

  it("answers HTML with no script, under a CSP that allows only its inline style, varying by Accept", async () => {
    const response = await serverPage(server, ORIGIN, ROUTES);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("vary")).toBe("Accept");
    expect(await response.text()).not.toMatch(/<script|\son\w+=/i);
  });

  it("names the server and lists what an anonymous client is listed, each with its title and description", async () => {
    const page = visible(await (await serverPage(server, ORIGIN, ROUTES)).text());
    expect(page).toContain("Page Test");
    expect(page).toContain("page-test 1.2.3");
    for (const shown of ["shown", "Shown Tool", "Always listed", "switchedOn", "boardTool", "greet", "Says hi", "docs://readme", "Read me", "docs://pages/{page}", "page"]) expect(page).toContain(shown);
    expect(page).toContain("GET /health liveness");
    expect(page).toMatch(/Protocol versions 2024-11-05, .*2026-07-28/);
  });

  it("keeps out what tools/list and kin keep from an anonymous client: declared off, app-only, needing scopes", async () => {
    const page = visible(await (await serverPage(server, ORIGIN, ROUTES)).text());
    for (const hidden of ["switchedOff", "scoped", "appOnly", "hiddenPrompt", "docs://secret", "docs://off/{id}"]) expect(page).not.toContain(hidden);
    // The listing is the methods' own: what a 2026-07-28 client that declares nothing gets.
    const listing = await anonymousListing(server, {});
    expect(listing.tools.map((t) => t.name)).toEqual(["shown", "switchedOn", "boardTool"]);
    expect(listing.prompts.map((p) => p.name)).toEqual(["greet"]);
    // The view is a resource the apps extension serves, listed as any other.
    expect(listing.resources.map((r) => r.uri)).toEqual(["docs://readme", board.uri]);
    expect(listing.resourceTemplates.map((r) => r.uriTemplate)).toEqual(["docs://pages/{page}"]);
  });

  it("lists every page of a long listing", async () => {
    const many = new CompiledServer({ name: "many", version: "1", tools: Array.from({ length: 250 }, (_, i) => tool({ name: `t${i}`, description: "d", input: z.object({}), handler: async () => "" })) });
    expect((await anonymousListing(many, {})).tools).toHaveLength(250);
  });

  it("fills in the MCP URL from the request's origin, in every client's instructions", async () => {
    const html = await (await serverPage(server, "https://mcp.example.com", ROUTES)).text();
    const page = visible(html);
    expect(page).toContain("MCP URL: https://mcp.example.com/mcp");
    expect(page).toContain("https://mcp.example.com/sse");
    expect(page).toContain("Add custom connector: paste https://mcp.example.com/mcp");
    expect(page).toContain("claude mcp add --transport http page-test https://mcp.example.com/mcp");
    expect(page).toContain("Developer mode; then create a connector with https://mcp.example.com/mcp");
    expect(page).toContain(JSON.stringify({ mcpServers: { "page-test": { url: "https://mcp.example.com/mcp" } } }, null, 2));
    expect(page).toContain(JSON.stringify({ servers: { "page-test": { type: "http", url: "https://mcp.example.com/mcp" } } }, null, 2));
    expect(page).toContain("npx @modelcontextprotocol/inspector");
    expect(page).toContain("Transport Streamable HTTP, URL https://mcp.example.com/mcp");
  });

  it("escapes what the author and the request supply: a hostile server name, tool description and origin", async () => {
    const hostile = new CompiledServer({
      name: `<script>alert("name")</script> & 'co'`,
      version: `1"><img src=x onerror=alert(1)>`,
      tools: [tool({ name: "evil", title: "<b>bold</b>", description: `</li></ul><script>alert('description')</script>`, input: z.object({}), handler: async () => "" })],
    });
    const html = await (await serverPage(hostile, `http://x"><script>alert('origin')</script>`, [{ method: "GET", path: "/<i>", description: "<u>mine</u>" }], { warnings: ["<script>warn</script>"] })).text();
    expect(html).not.toMatch(/<script|<img|<u>|<i>|<b>bold/i);
    const page = visible(html);
    expect(page).toContain(`<script>alert('description')</script>`);
    expect(page).toContain(`<script>alert("name")</script> & 'co'`);
    expect(page).toContain(`http://x"><script>alert('origin')</script>/mcp`);
    // The command stays one shell word per argument: the name made a plain key, the URL quoted.
    expect(page).toContain(`claude mcp add --transport http script-alert-name-script-co 'http://x"><script>alert('\\''origin'\\'')</script>/mcp'`);
  });

  it("shows why the server cannot be used, and its warnings, before anything else", async () => {
    const broken = new CompiledServer({ name: "broken", version: "1", tools: [tool({ name: "twice", description: "d", input: z.object({}), handler: async () => "" }), tool({ name: "twice", description: "d", input: z.object({}), handler: async () => "" })] });
    expect(broken.problem).toBeDefined();
    const html = await (await serverPage(broken, ORIGIN, ROUTES, { problem: broken.problem, warnings: ["Some tools run as tasks, and no task host"] })).text();
    const problem = html.indexOf("This server cannot be used:");
    expect(problem).toBeGreaterThan(0);
    expect(visible(html)).toContain(`This server cannot be used: ${broken.problem!.message}`);
    expect(html.indexOf("Some tools run as tasks")).toBeGreaterThan(problem);
    expect(html.indexOf("Some tools run as tasks")).toBeLessThan(html.indexOf("<h2>"));
    // A definition that cannot be served answers no list: none is shown.
    expect(html).not.toContain("<h2>Tools");
  });
});
