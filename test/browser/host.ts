/**
 * A host page for the Apps host test, bundled for the browser: it plays an MCP host as ext-apps'
 * own host bridge (`AppBridge`) does — connects to the server with the official v2 client
 * (2026-07-28, or a 2025-11-25 session), calls the tool, reads its view with `resources/read`,
 * loads it into a sandboxed iframe under the CSP its `_meta.ui.csp` asks for (SEP-1865 "Host
 * Behavior"), and relays the view's own tool calls back to the server, refusing tools the view
 * may not call ("Visibility"). It hands the view a theme and style variables, accepts its model
 * context updates, and keeps what the view sent (sizes, context, capabilities) for the test to read.
 */
import { AppBridge, getToolUiResourceUri, isToolVisibilityModelOnly, PostMessageTransport, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** The little of the DOM this page uses (the project's type-check has no DOM library). */
interface Frame {
  id: string;
  srcdoc: string;
  style: { height: string };
  contentWindow: unknown;
  setAttribute(name: string, value: string): void;
}
declare const document: { createElement(tag: "iframe"): Frame; getElementById(id: string): { append(node: Frame): void } | null };
const page = globalThis as unknown as { runHost?: typeof runHost; hostReport?: HostReport; darkHost?: () => void };

interface HostRun {
  mcpUrl: string;
  era: "2026-07-28" | "2025-11-25";
  tool: string;
  args: Record<string, unknown>;
}

/** What the test reads back: what the host saw. */
interface HostReport {
  protocolVersion: string | undefined;
  listed: string[];
  resultText: string;
  viewUri: string;
  csp: string;
  calledByView: string[];
  /** The view's `appCapabilities` from its `ui/initialize`. */
  appCapabilities: unknown;
  /** Each height the view reported, in order. */
  heights: number[];
  /** The style variables the host handed the view. */
  hostStyles: Record<string, string>;
  /** The style variables `darkHost()` hands the view later. */
  darkHostStyles: Record<string, string>;
  /** Each `ui/update-model-context` the view sent, in order. */
  modelContext: { content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> }[];
}

/** The host's style variables (SEP-1865 "Theming"): values a view cannot have by chance. */
const HOST_STYLES = { "--color-background-primary": "rgb(253, 246, 227)", "--color-text-primary": "rgb(88, 44, 12)" };
/** The same after the person switches the host to dark. */
const DARK_HOST_STYLES = { "--color-background-primary": "rgb(0, 43, 54)", "--color-text-primary": "rgb(238, 232, 213)" };

/** The CSP a host puts on a view (SEP-1865 "Security Implications"): the declared origins, nothing else. */
function cspFor(csp: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] } = {}): string {
  const resources = (csp.resourceDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`,
    `style-src 'unsafe-inline' ${resources}`,
    `img-src data: ${resources}`,
    `font-src ${resources || "'none'"}`,
    `connect-src ${(csp.connectDomains ?? []).join(" ") || "'none'"}`,
    `frame-src ${(csp.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp.baseUriDomains ?? []).join(" ") || "'none'"}`,
  ].join("; ");
}

async function runHost({ mcpUrl, era, tool, args }: HostRun): Promise<HostReport> {
  const client = new Client(
    { name: "durable-mcp-test-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } as never, versionNegotiation: { mode: era === "2026-07-28" ? { pin: "2026-07-28" } : "legacy" } } as never,
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const { tools } = await client.listTools();
  const found = tools.find((t) => t.name === tool);
  if (!found) throw new Error(`${tool} is not listed: ${tools.map((t) => t.name).join(", ")}`);
  const viewUri = getToolUiResourceUri(found);
  if (!viewUri) throw new Error(`${tool} names no view`);
  const result = await client.callTool({ name: tool, arguments: args });
  const { contents } = await client.readResource({ uri: viewUri });
  const content = contents[0] as { text?: string; mimeType?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
  if (content?.mimeType !== RESOURCE_MIME_TYPE || typeof content.text !== "string") throw new Error(`${viewUri} is not a view: ${JSON.stringify(content)}`);
  const csp = cspFor(content._meta?.ui?.csp);

  const iframe = document.createElement("iframe");
  iframe.id = "view";
  // An opaque origin: the view reaches nothing of the host's, only postMessage.
  iframe.setAttribute("sandbox", "allow-scripts");
  document.getElementById("views")!.append(iframe);

  const calledByView: string[] = [];
  const heights: number[] = [];
  const modelContext: HostReport["modelContext"] = [];
  const bridge = new AppBridge(
    client as never,
    { name: "durable-mcp-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {}, updateModelContext: { text: {} } },
    { hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline", "fullscreen"], platform: "web", styles: { variables: HOST_STYLES } } } as never,
  );
  bridge.onsizechange = ({ height }) => {
    if (height === undefined) return;
    heights.push(height);
    iframe.style.height = `${height}px`;
  };
  bridge.onupdatemodelcontext = async (params) => {
    modelContext.push(params as HostReport["modelContext"][number]);
    return {};
  };
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  // The bridge listens before the view loads: a view says `ui/initialize` as soon as it runs.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow as never, iframe.contentWindow as never));
  // Set after connect(), which installs a forwarder of its own for a bridge made with a client.
  bridge.oncalltool = async (params) => {
    calledByView.push(params.name);
    const target = tools.find((t) => t.name === params.name);
    if (!target || isToolVisibilityModelOnly(target)) throw new Error(`The view may not call ${params.name}`);
    return (await client.callTool(params)) as never;
  };
  iframe.srcdoc = content.text.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result as never);
  const text = (result.content as { type: string; text?: string }[]).find((c) => c.type === "text")?.text ?? "";
  const report: HostReport = { protocolVersion: client.getNegotiatedProtocolVersion?.(), listed: tools.map((t) => t.name), resultText: text, viewUri, csp, calledByView, appCapabilities: bridge.getAppCapabilities(), hostStyles: HOST_STYLES, darkHostStyles: DARK_HOST_STYLES, heights, modelContext };
  page.hostReport = report;
  page.darkHost = () => bridge.setHostContext({ theme: "dark", displayMode: "inline", availableDisplayModes: ["inline", "fullscreen"], platform: "web", styles: { variables: DARK_HOST_STYLES } } as never);
  return report;
}

page.runHost = runHost;
