/**
 * Standard Schema (https://standardschema.dev): the interface zod 4 (classic and mini), valibot,
 * arktype and others implement, so that tool and prompt schemas come from whichever library an
 * author likes and the core imports none. Two parts are used:
 *
 * - `~standard.validate` checks arguments before a handler runs (and structured output after);
 * - the JSON Schema a client sees comes from `~standard.jsonSchema` (Standard JSON Schema:
 *   zod 4.2+ classic, arktype, valibot through `@valibot/to-json-schema`'s `toStandardJsonSchema`),
 *   or, for schemas that do not carry it (zod/mini keeps its converter out of the bundle), from
 *   the converter the server definition names (`toJsonSchema: z.toJSONSchema`).
 *
 * The interfaces are the published ones, declared here so that no schema library is a dependency.
 */
import { boundedReport } from "./boundedReport.ts";

export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

export interface JsonSchemaOptions {
  readonly target: string;
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown, options?: { readonly libraryOptions?: Record<string, unknown> | undefined }): StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    /** Standard JSON Schema; optional here, since the definition may bring a converter instead. */
    readonly jsonSchema?: {
      input(options: JsonSchemaOptions): Record<string, unknown>;
      output(options: JsonSchemaOptions): Record<string, unknown>;
    };
  };
}

export type InferInput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["input"];
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];

/**
 * A library's JSON Schema converter, for schemas without `~standard.jsonSchema`. zod's
 * `toJSONSchema` (from "zod/mini" or "zod") has this shape.
 *
 * @example defineServer({ name, version, toJsonSchema: z.toJSONSchema, tools: [...] })
 */
export type JsonSchemaConverter = (schema: any, options: { io: "input" | "output"; target: "draft-2020-12"; unrepresentable: "any" }) => object;

/** How a schema of each library gets its JSON Schema, for the startup error of one that has none. */
const CONVERSION_HINTS: Record<string, string> = {
  valibot: "wrap it with toStandardJsonSchema from @valibot/to-json-schema (npm install @valibot/to-json-schema), e.g. input: toStandardJsonSchema(v.object({ … }))",
  zod: "pass its library's converter to defineServer (e.g. toJsonSchema: z.toJSONSchema for zod/mini)",
};

/**
 * The vendor of `jsonSchema()`'s schemas: JSON Schema written by hand, which goes out as written,
 * `$schema` included (a dialect other than 2020-12 must say so). A library's conversion is not.
 */
export const JSON_SCHEMA_VENDOR = "durable-mcp";

/** Issues a message shows; the rest are counted. Bounds the message a client can provoke. */
export const MAX_REPORTED_ISSUES = 10;

/** A parsed value (the library may transform it), or a readable reason. */
export type Validated = { ok: true; value: unknown } | { ok: false; message: string };

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const standard = (value as StandardSchemaV1 | null)?.["~standard"];
  return typeof standard === "object" && standard !== null && standard.version === 1 && typeof standard.validate === "function";
}

/**
 * Validates with the schema's own library; issues become one `✖` line each, with the path, at
 * most `MAX_REPORTED_ISSUES` of them, then "… and N more issues".
 */
export function validateStandard(schema: StandardSchemaV1, value: unknown): Validated | Promise<Validated> {
  const result = schema["~standard"].validate(value);
  // Most libraries validate synchronously: no promise is made for them, on every tool call.
  return result instanceof Promise ? result.then(validated) : validated(result);
}

function validated(result: StandardResult<unknown>): Validated {
  return result.issues === undefined ? { ok: true, value: result.value } : { ok: false, message: describeIssues(result.issues) };
}

/**
 * The JSON Schema (draft 2020-12, the MCP default) of a schema's input or output side, without
 * the `$schema` a library adds: MCP clients up to 2025-06-18 compare schemas to plain objects.
 * A `jsonSchema()` schema is returned as written.
 *
 * @param what names the schema in the startup error, e.g. `Tool search's input`.
 * @throws TypeError when the schema cannot produce JSON Schema and no converter was given, or
 *   when producing it fails (a zod transform; a `jsonSchema()` with an unknown `$schema`): the
 *   library's reason, after `what`.
 */
export function jsonSchemaOf(schema: StandardSchemaV1, io: "input" | "output", convert: JsonSchemaConverter | undefined, what: string): Record<string, unknown> {
  const standard = schema["~standard"];
  // valibot's converter is a package of its own, which wraps the schema; another library's converter would only fail on it.
  if (!standard.jsonSchema && !(convert && standard.vendor !== "valibot")) {
    throw new TypeError(`${what} is a ${standard.vendor} schema that cannot produce JSON Schema: it lacks ~standard.jsonSchema; ${CONVERSION_HINTS[standard.vendor] ?? CONVERSION_HINTS.zod}`);
  }
  let json: Record<string, unknown>;
  try {
    json = (
      standard.jsonSchema
        ? standard.jsonSchema[io]({ target: "draft-2020-12", libraryOptions: { unrepresentable: "any" } })
        : convert!(schema, { io, target: "draft-2020-12", unrepresentable: "any" })
    ) as Record<string, unknown>;
  } catch (error) {
    throw new TypeError(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (standard.vendor === JSON_SCHEMA_VENDOR) return json;
  const { $schema: _dropped, ...rest } = json;
  return rest;
}

/**
 * One `✖` line per issue, with its path, for the first `MAX_REPORTED_ISSUES`, each cut to
 * `MAX_ENTRY_CHARS`; the rest are counted. The client chooses how many issues there are: 4 MB of
 * `[1,1,…]` against an array of strings is 2 M issues, which once made a 141 M character message.
 */
function describeIssues(issues: ReadonlyArray<StandardIssue>): string {
  const shown = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const path = (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment));
    return path.length === 0 ? `✖ ${issue.message}` : `✖ ${issue.message}\n  → at ${formatPath(path)}`;
  });
  return boundedReport(shown, issues.length, ["issue", "issues"]);
}

/** A path as a reader writes it: `states[3].code`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("");
}
