/**
 * `x-mcp-header` (2026-07-28 tools spec, SEP-2243): a tool may ask clients to mirror some of its
 * arguments into `Mcp-Param-<Name>` request headers, so that gateways can route on them without
 * reading bodies. This reads the annotations from a tool's advertised input schema once, at
 * startup, and refuses the definitions the spec calls invalid (clients would silently drop the
 * tool): an empty or non-token name, a name used twice (case-insensitively), a type other than
 * string, integer or boolean, or an annotation not reachable from the root through `properties`.
 */
import { isObject } from "../jsonrpc/isObject.ts";

export interface ParamHeader {
  /** Argument path from the root, e.g. `["region"]`. */
  path: string[];
  /** The header's name, without the `Mcp-Param-` prefix, as declared. */
  name: string;
  type: "string" | "integer" | "boolean";
}

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KEY = "x-mcp-header";

/** @throws TypeError naming the tool and the broken annotation. */
export function paramHeaders(toolName: string, inputSchema: Record<string, unknown>): ParamHeader[] {
  const found: ParamHeader[] = [];
  const reachable = new Set<unknown>();
  const walk = (schema: unknown, path: string[]) => {
    if (!isObject(schema) || !isObject(schema.properties)) return;
    for (const [property, sub] of Object.entries(schema.properties)) {
      if (!isObject(sub)) continue;
      const where = [...path, property];
      if (KEY in sub) {
        reachable.add(sub);
        found.push(checked(toolName, where, sub));
      }
      walk(sub, where);
    }
  };
  walk(inputSchema, []);
  const stray = findAnnotated(inputSchema).find((s) => !reachable.has(s));
  if (stray) {
    throw new TypeError(`Tool ${toolName}: "${KEY}" is only allowed on properties reachable from the root through "properties" (not inside items, $ref, anyOf/oneOf/allOf/not or if/then/else)`);
  }
  const seen = new Set<string>();
  for (const { name } of found) {
    if (seen.has(name.toLowerCase())) throw new TypeError(`Tool ${toolName}: "${KEY}" name ${JSON.stringify(name)} is used twice (names are case-insensitive)`);
    seen.add(name.toLowerCase());
  }
  return found;
}

function checked(toolName: string, path: string[], schema: Record<string, unknown>): ParamHeader {
  const name = schema[KEY];
  const what = `Tool ${toolName}, argument ${path.join(".")}`;
  if (typeof name !== "string" || !TOKEN.test(name)) {
    throw new TypeError(`${what}: "${KEY}" must be a non-empty header token (letters, digits and !#$%&'*+.^_\`|~-), got ${JSON.stringify(name)}`);
  }
  const type = schema.type;
  if (type !== "string" && type !== "integer" && type !== "boolean") {
    throw new TypeError(`${what}: "${KEY}" needs "type" string, integer or boolean, got ${JSON.stringify(type)}`);
  }
  return { path, name, type };
}

/** Keywords whose value is a subschema, a list of them, or a map of them (JSON Schema 2020-12 and draft-07). */
const ONE = ["additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/**
 * Every subschema below `schema` that carries the annotation. Only schema positions are
 * visited: an argument named `x-mcp-header`, or one inside a `default` or `examples` value, is data.
 */
function findAnnotated(schema: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (!isObject(schema)) return out;
  if (KEY in schema) out.push(schema);
  for (const keyword of ONE) if (isObject(schema[keyword])) findAnnotated(schema[keyword], out);
  for (const keyword of LIST) if (Array.isArray(schema[keyword])) for (const sub of schema[keyword] as unknown[]) findAnnotated(sub, out);
  for (const keyword of MAP) if (isObject(schema[keyword])) for (const sub of Object.values(schema[keyword] as object)) findAnnotated(sub, out);
  return out;
}
