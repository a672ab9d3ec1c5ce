/**
 * What a tool declares to be shown in a view (MCP Apps, SEP-1865 "Resource Discovery"): which
 * view, and who may call it. A type only: `apps()` reads it (`capabilities/apps`), so a server without views ships none
 * of the code that does.
 */

/** Who may call a tool: the model (it is in the model's tool list), the view (through the host), or both. */
export type ToolVisibility = "model" | "app";

export interface ToolView {
  /** The `ui://` URI of a view given to `apps({ views })`. */
  view: string;
  /** Default `["model", "app"]`. `["app"]`: only the view calls it (a refresh, a form), and hosts keep it from the model. */
  visibility?: readonly ToolVisibility[];
}
