/**
 * `jsonSchema(schema)`: plain JSON Schema made a Standard Schema, for a tool's input or output
 * written without a schema library. Its JSON Schema is the one given, advertised verbatim
 * (`$schema` kept); values are checked with `@cfworker/json-schema`, because Workers forbid
 * `eval`/`new Function` (so no Ajv at runtime). The validator arrives with this factory only: a
 * Worker whose schemas all come from a library ships none of it.
 *
 * The dialect comes from `$schema`; without one it is 2020-12, the MCP default (basic spec, "JSON
 * Schema Usage"). Also understood: 2019-09, draft-07 and draft-04. Nothing is checked when
 * `jsonSchema()` is called, so importing a module that calls it never throws: the schema is
 * compiled when the definition asks for its JSON Schema (`toolSchemas`, at startup), where an
 * unknown `$schema` is refused, naming the tool, rather than validated by the wrong rules. The
 * shape MCP requires of the root (`"type": "object"`, object `properties`, string `required`) is
 * checked there too, for every tool whichever library wrote its schema.
 *
 * Not done: checking the schema against its meta-schema; an unresolvable `$ref` surfaces as an
 * internal error on use. How many failures a message shows is the core's (`describeIssues`).
 */
import { type OutputUnit, type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import { isObject } from "../jsonrpc/isObject.ts";
import { JSON_SCHEMA_VENDOR, type StandardIssue, type StandardSchemaV1 } from "./standardSchema.ts";

/** A JSON Schema whose root describes an object, as MCP requires of tool input and output schemas. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

/** `$schema` URIs, without scheme and trailing "#", to the draft name the validator takes. */
const DIALECTS = new Map<string, SchemaDraft>([
  ["//json-schema.org/draft/2020-12/schema", "2020-12"],
  ["//json-schema.org/draft/2019-09/schema", "2019-09"],
  ["//json-schema.org/draft-07/schema", "7"],
  ["//json-schema.org/draft-04/schema", "4"],
]);
const DEFAULT_DIALECT: SchemaDraft = "2020-12";

/**
 * A Standard Schema whose JSON Schema is `schema`, as written, and whose `validate` runs
 * `@cfworker/json-schema`. A failure becomes one issue per failing keyword: the validator's
 * message with the schema location, e.g. `Instance type "number" is invalid. Expected "string".
 * (schema #/properties/city/type)`, at the instance location as a path (`city`).
 *
 * @typeParam T What the handler gets as arguments (or returns, as `output`); default
 *   `Record<string, unknown>`. Stated, not inferred: keep it true to the schema.
 * @throws nothing when called; a bad `$schema` is a problem of the definition that uses it.
 *
 * @example
 * import { jsonSchema, tool } from "durable-mcp";
 * tool({ name: "greet", description: "Greets",
 *        input: jsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }),
 *        handler: async (args) => `Hello ${String(args.name)}` });
 */
export function jsonSchema<T = Record<string, unknown>>(schema: JsonSchemaObject): StandardSchemaV1<T> {
  let validator: Validator | undefined;
  // The validator annotates the schema objects it is given; a clone keeps the advertised one untouched.
  const compiled = () => (validator ??= new Validator(structuredClone(schema) as Schema, dialect(isObject(schema) ? schema.$schema : undefined), false));
  // Asked for when the definition compiles: the schema's problems surface there, not at import.
  const advertised = () => {
    compiled();
    return schema;
  };
  return {
    "~standard": {
      version: 1,
      vendor: JSON_SCHEMA_VENDOR,
      validate(value) {
        try {
          const { valid, errors } = compiled().validate(value);
          return valid ? { value: value as T } : { issues: issuesOf(errors, value) };
        } catch (error) {
          // Values the validator cannot describe (a key holding a lone surrogate: its location
          // cannot be URI-encoded) are the client's doing: refused as invalid, not a server error.
          if (!(error instanceof URIError)) throw error;
          return { issues: [{ message: `The value cannot be checked against the schema: ${error.message} (a key or string that is not well-formed UTF-16)` }] };
        }
      },
      jsonSchema: { input: advertised, output: advertised },
    },
  };
}

function dialect(uri: unknown): SchemaDraft {
  if (uri === undefined) return DEFAULT_DIALECT;
  const draft = typeof uri === "string" ? DIALECTS.get(uri.replace(/^https?:/, "").replace(/#$/, "")) : undefined;
  if (!draft) throw new TypeError(`"$schema" is ${JSON.stringify(uri)}; supported are JSON Schema 2020-12 (the default), 2019-09, draft-07 and draft-04`);
  return draft;
}

/**
 * The validator reports every failing keyword, parents included ("A subschema had errors.").
 * Keep the most specific ones: drop a failure whose schema location encloses another failure,
 * except `anyOf`/`oneOf`, which say that the alternatives below are alternatives; drop `false`
 * (it repeats its parent). Distinct issues only: the count the core reports ("… and N more
 * issues") is of these, and the client chooses how many there are (one per extra key, say).
 *
 * Linear in the errors: enclosing locations are collected once in a set, not found by comparing
 * every pair of errors (16,000 extra keys took 3.7 s that way).
 */
function issuesOf(errors: OutputUnit[], value: unknown): StandardIssue[] {
  const enclosing = enclosingLocations(errors);
  const specific = errors.filter((e) => e.keyword !== "false" && (e.keyword === "anyOf" || e.keyword === "oneOf" || !enclosing.has(e.keywordLocation)));
  const issues = new Map<string, StandardIssue>();
  for (const e of specific.length > 0 ? specific : errors) {
    const message = `${e.error} (schema ${e.keywordLocation})`;
    const key = `${e.instanceLocation} ${message}`;
    if (!issues.has(key)) issues.set(key, { message, path: pathOf(e.instanceLocation, value) });
  }
  return [...issues.values()];
}

/**
 * Every proper `/`-prefix of every error's keyword location: `#/a/b` gives `#/a` and `#`.
 * Walking up stops at a prefix already collected, whose own prefixes are then collected too,
 * so each distinct prefix is built once, however deep the locations.
 */
function enclosingLocations(errors: readonly OutputUnit[]): Set<string> {
  const enclosing = new Set<string>();
  for (const { keywordLocation } of errors) {
    let end = keywordLocation.lastIndexOf("/");
    while (end >= 0) {
      const prefix = keywordLocation.slice(0, end);
      if (enclosing.has(prefix)) break;
      enclosing.add(prefix);
      end = end === 0 ? -1 : keywordLocation.lastIndexOf("/", end - 1);
    }
  }
  return enclosing;
}

/**
 * An instance location, `#/items/0/name`, as a Standard path, `["items", 0, "name"]`: each
 * segment as the validator wrote it (RFC 6901 escapes, then `encodeURI`) decoded, and a number
 * where the value there is an array, so that the core writes `items[0].name`.
 */
function pathOf(location: string, value: unknown): PropertyKey[] {
  const path: PropertyKey[] = [];
  let node = value;
  for (const segment of location.split("/").slice(1)) {
    const key = decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
    const step = Array.isArray(node) ? Number(key) : key;
    path.push(step);
    node = node !== null && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[step] : undefined;
  }
  return path;
}
