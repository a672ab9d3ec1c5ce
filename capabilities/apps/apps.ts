/**
 * `apps({ views })`: the MCP Apps extension (SEP-1865, `io.modelcontextprotocol/ui`). It serves
 * each view as a resource (so `resources/read` gives it on every endpoint and era, which Claude
 * needs, or the view stays blank), and gives each tool that names a view (`ui`) the metadata
 * hosts read: `_meta.ui` (`resourceUri`, `visibility`), the older `ui/resourceUri`, and ChatGPT's
 * `openai/outputTemplate`, `openai/widgetAccessible` and `openai/visibility`.
 *
 * A client that does not declare the extension is a text-only host: `tools/list` keeps app-only
 * tools (`visibility: ["app"]`) from it, since no view of its will call them and its model should
 * not; a tool with a view stays, and answers it in text (`rendersViews`). Calls are never refused
 * for that: a view reaches its tools through its host's own connection.
 */
import type { Extension } from "../../shared/definition/ServerOptions.ts";
import { LISTED_FOR } from "../../shared/definition/ListedFor.ts";
import type { AnyToolDefinition } from "../../shared/definition/ToolDefinition.ts";
import { APPS_EXTENSION, declaresViews, VIEW_MIME_TYPE } from "./appsExtension.ts";
import type { ToolVisibility } from "../../shared/definition/ToolView.ts";
import type { View } from "./view.ts";

const VISIBILITIES: readonly ToolVisibility[] = ["model", "app"];

export interface AppsOptions {
  /** The views served, each made with `view()`; at least one. */
  views: readonly View[];
}

/**
 * @example
 * defineServer({ …, tools: [boardTool], use: [apps({ views: [board] })] })
 */
export function apps(options: AppsOptions): Extension {
  const views = options?.views;
  return {
    id: APPS_EXTENSION,
    extend(server) {
      if (!Array.isArray(views) || views.length === 0) throw new TypeError("apps(): give it { views: [...] }, each made with view()");
      const byUri = new Map<string, View>();
      for (const view of views) {
        if (typeof view?.resource !== "object") throw new TypeError(`apps(): ${JSON.stringify(view?.uri ?? view)} was not made with view()`);
        if (byUri.has(view.uri)) throw new TypeError(`apps(): the view ${view.uri} is given twice`);
        byUri.set(view.uri, view);
      }
      const tools = (server.tools ?? []).map((tool) => (tool.ui === undefined ? tool : withView(tool, byUri)));
      return {
        settings: { mimeTypes: [VIEW_MIME_TYPE] },
        options: { ...server, tools, resources: [...(server.resources ?? []), ...views.map((view) => view.resource)] },
      };
    },
  };
}

/** The tool as hosts must see it: its view's metadata in `_meta`, listed only where it can be used. */
function withView<T extends AnyToolDefinition>(tool: T, views: ReadonlyMap<string, View>): T {
  const { view: uri, visibility = VISIBILITIES } = tool.ui!;
  if (!views.has(uri)) throw new TypeError(`Tool ${tool.name} names the view ${JSON.stringify(uri)}, which is not among apps({ views }): ${[...views.keys()].join(", ")}`);
  if (!Array.isArray(visibility) || visibility.length === 0 || visibility.some((v) => !VISIBILITIES.includes(v))) {
    throw new TypeError(`Tool ${tool.name}: ui.visibility must list "model", "app" or both; got ${JSON.stringify(visibility)}`);
  }
  const toModel = visibility.includes("model");
  const meta = {
    ...tool._meta,
    ui: { resourceUri: uri, visibility: [...visibility] },
    // Read by hosts that predate `ui.resourceUri` (ext-apps' registerAppTool sets it too).
    "ui/resourceUri": uri,
    "openai/outputTemplate": uri,
    "openai/widgetAccessible": visibility.includes("app"),
    "openai/visibility": toModel ? "public" : "private",
  };
  // A copy that keeps the tool's mark (`tool()`): spreading copies its symbol-keyed members.
  return { ...tool, ui: undefined, _meta: meta, ...(!toModel && { [LISTED_FOR]: declaresViews }) } as T;
}
