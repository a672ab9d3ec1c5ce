import { McpUiResourceMetaSchema, McpUiToolMetaSchema, getToolUiResourceUri, isToolVisibilityAppOnly, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/app-bridge";
import { EXTENSION_ID, getUiCapability } from "@modelcontextprotocol/ext-apps/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MODERN_PROTOCOL_VERSIONS } from "../../shared/protocol/versions.ts";
import { defineServer, tool } from "../../shared/server/defineServer.ts";
import { call, stubContext } from "../../shared/testing/testKit.ts";
import { apps } from "./apps.ts";
import { APPS_EXTENSION, rendersViews, VIEW_MIME_TYPE } from "./appsExtension.ts";
import { view } from "./view.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const HTML = "<!DOCTYPE html><html><body>board</body></html>";
const board = view({ uri: "ui://test/board.html", name: "board", description: "A board", html: HTML, csp: { connectDomains: ["https://api.example.com"] }, domain: "board.example.com", prefersBorder: true });
const shown = tool({ name: "show", description: "Shows the board", input: z.object({}), ui: { view: board.uri }, handler: async (_a, ctx) => (rendersViews(ctx) ? "shown" : "as text") });
const picked = tool({ name: "pick", description: "Picks", input: z.object({}), ui: { view: board.uri, visibility: ["app"] }, handler: async () => "picked" });
const plain = tool({ name: "plain", description: "No view", input: z.object({}), handler: async () => "plain" });
const server = new CompiledServer({ name: "apps", version: "1", tools: [shown, picked, plain], use: [apps({ views: [board] })] });

/** A client that renders views, as ext-apps' host declares itself. */
const VIEWS = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const withCapabilities = (capabilities: Record<string, unknown>, protocolVersion = "2025-11-25") => stubContext({}, { client: { protocolVersion, capabilities } });
const names = (result: Record<string, unknown>) => (result.tools as { name: string }[]).map((t) => t.name);

describe("apps()", () => {
  it("states the extension's names as ext-apps does", () => {
    expect(APPS_EXTENSION).toBe(EXTENSION_ID);
    expect(VIEW_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(getUiCapability(VIEWS)).toEqual({ mimeTypes: [RESOURCE_MIME_TYPE] });
  });

  it("advertises the extension in initialize and server/discover alike", () => {
    expect(server.problem).toBeUndefined();
    const { result } = server.initialize({ protocolVersion: "2025-11-25", capabilities: {} });
    expect((result.capabilities as Record<string, unknown>).extensions).toEqual({ [APPS_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } });
    expect((server.discover().capabilities as Record<string, unknown>).extensions).toEqual({ [APPS_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } });
    expect(server.extensionIds(false)).toEqual([APPS_EXTENSION]);
  });

  it("gives a tool with a view the metadata ext-apps' host reads, and ChatGPT's keys beside it", async () => {
    const listed = (await call(server, "tools/list", {}, withCapabilities(VIEWS))).tools as { name: string; _meta?: Record<string, unknown> }[];
    const [show, pick, none] = listed;
    expect(McpUiToolMetaSchema.parse(show!._meta!.ui)).toEqual({ resourceUri: board.uri, visibility: ["model", "app"] });
    expect(getToolUiResourceUri(show!)).toBe(board.uri);
    expect(show!._meta).toMatchObject({ [RESOURCE_URI_META_KEY]: board.uri, "openai/outputTemplate": board.uri, "openai/widgetAccessible": true, "openai/visibility": "public" });
    expect(isToolVisibilityAppOnly(pick!)).toBe(true);
    expect(pick!._meta).toMatchObject({ "openai/widgetAccessible": true, "openai/visibility": "private" });
    expect(none!._meta).toBeUndefined();
  });

  it("keeps app-only tools from clients that render no views, in every era, and still answers their calls", async () => {
    for (const protocolVersion of ["2025-11-25", ...MODERN_PROTOCOL_VERSIONS]) {
      expect(names(await call(server, "tools/list", {}, withCapabilities({}, protocolVersion)))).toEqual(["show", "plain"]);
      expect(names(await call(server, "tools/list", {}, withCapabilities(VIEWS, protocolVersion)))).toEqual(["show", "pick", "plain"]);
    }
    expect(await call(server, "tools/call", { name: "pick", arguments: {} }, withCapabilities({}))).toMatchObject({ content: [{ text: "picked" }] });
  });

  it("lets the handler answer a text-only client in text", async () => {
    expect(await call(server, "tools/call", { name: "show", arguments: {} }, withCapabilities(VIEWS))).toMatchObject({ content: [{ text: "shown" }] });
    expect(await call(server, "tools/call", { name: "show", arguments: {} }, withCapabilities({}))).toMatchObject({ content: [{ text: "as text" }] });
    // A declaration without the view MIME type is not one.
    expect(await call(server, "tools/call", { name: "show", arguments: {} }, withCapabilities({ extensions: { [EXTENSION_ID]: { mimeTypes: ["text/plain"] } } }))).toMatchObject({ content: [{ text: "as text" }] });
  });

  it("serves the view with resources/read, its _meta.ui valid for ext-apps, on the listing and the content", async () => {
    const { resources } = (await call(server, "resources/list")) as { resources: Record<string, unknown>[] };
    expect(resources).toEqual([expect.objectContaining({ uri: board.uri, name: "board", mimeType: RESOURCE_MIME_TYPE })]);
    const { contents } = (await call(server, "resources/read", { uri: board.uri })) as { contents: Record<string, unknown>[] };
    expect(contents).toEqual([expect.objectContaining({ uri: board.uri, mimeType: RESOURCE_MIME_TYPE, text: HTML })]);
    for (const meta of [resources[0]!._meta, contents[0]!._meta] as Record<string, unknown>[]) {
      expect(McpUiResourceMetaSchema.parse(meta.ui)).toEqual({ csp: { connectDomains: ["https://api.example.com"], resourceDomains: [] }, domain: "board.example.com", prefersBorder: true });
      expect(meta).toMatchObject({ "openai/widgetCSP": { connect_domains: ["https://api.example.com"], resource_domains: [] }, "openai/widgetDomain": "board.example.com", "openai/widgetPrefersBorder": true });
    }
  });

  it("refuses, with a sentence, what no host could render", () => {
    expect(() => view({ uri: "https://x/board.html", name: "b", html: HTML })).toThrow(/must start with "ui:\/\/"/);
    expect(() => view({ uri: "ui://x", name: "b", html: "board" })).toThrow(/whole HTML document/);
    expect(() => view({ uri: "ui://x", name: "b", html: HTML, csp: { connectDomains: ["api.example.com; script-src *"] } })).toThrow(/not an origin/);
    const problem = (options: ConstructorParameters<typeof CompiledServer>[0]) => defineServer(options).problem?.message;
    expect(problem({ name: "s", version: "1", tools: [shown] })).toMatch(/Tool show names a view \("ui"\), but "use" has no apps\(\{ views \}\)/);
    expect(problem({ name: "s", version: "1", tools: [{ ...shown, ui: { view: "ui://elsewhere" } }], use: [apps({ views: [board] })] })).toMatch(/names the view "ui:\/\/elsewhere", which is not among/);
    expect(problem({ name: "s", version: "1", tools: [{ ...shown, ui: { view: board.uri, visibility: [] } }], use: [apps({ views: [board] })] })).toMatch(/ui.visibility must list/);
    expect(problem({ name: "s", version: "1", use: [apps({ views: [board] }), apps({ views: [board] })] })).toMatch(/listed twice/);
  });
});
