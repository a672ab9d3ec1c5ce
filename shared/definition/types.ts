/**
 * The wire shapes a server author touches: who is who, content blocks, tool results, resource
 * contents. Definitions live beside them (`ToolDefinition.ts`, `ResourceDefinition.ts`,
 * `PromptDefinition.ts`, `ServerOptions.ts`) and the handler's context in `RequestContext.ts`.
 *
 * Shapes follow the MCP 2025-11-25 schema (`schema/2025-11-25/schema.ts`); `icons` are not
 * modelled yet.
 */

/** MCP `Implementation`: who a client or server says it is. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
}

/** MCP `Role`: who speaks a prompt message, or whom a piece of content is for. */
export type Role = "user" | "assistant";

/** MCP `Annotations`: display hints on content and resources (resources spec, "Annotations"). */
export interface Annotations {
  audience?: Role[];
  /** 0 (entirely optional) to 1 (effectively required). */
  priority?: number;
  /** ISO 8601, e.g. "2025-01-12T15:00:58Z". */
  lastModified?: string;
}

/** The `_meta` field the schema allows on most objects (basic spec, "General fields: _meta"). */
export type Meta = Record<string, unknown>;

/** Hints about a tool's behaviour (MCP `ToolAnnotations`); clients must not trust them blindly. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** MCP `TextResourceContents` / `BlobResourceContents`: what `resources/read` answers with. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Meta }
  | { uri: string; mimeType?: string; /** base64 */ blob: string; _meta?: Meta };

interface BlockExtras {
  annotations?: Annotations;
  _meta?: Meta;
}

/** MCP `ContentBlock`: one piece of a tool result or a prompt message. */
export type ContentBlock = BlockExtras &
  (
    | { type: "text"; text: string }
    | { type: "image"; /** base64 */ data: string; mimeType: string }
    | { type: "audio"; /** base64 */ data: string; mimeType: string }
    | { type: "resource_link"; uri: string; name: string; title?: string; mimeType?: string; description?: string; size?: number }
    /** An embedded resource (MCP `EmbeddedResource`), e.g. a file's text inside a prompt. */
    | { type: "resource"; resource: ResourceContents }
  );

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
}
