/**
 * Raw JSON Schema → a check for tool arguments and structured output, using
 * `@cfworker/json-schema` because Workers forbid `eval`/`new Function` (so no Ajv at runtime).
 *
 * The dialect comes from `$schema`; without one it is 2020-12, the MCP default (basic spec,
 * "JSON Schema Usage"). Also understood: 2019-09, draft-07 and draft-04. Any other `$schema`
 * fails at startup rather than being validated by the wrong rules. The schema is not itself
 * checked against its meta-schema; an unresolvable `$ref` surfaces as an internal error on use.
 */
import { type OutputUnit, type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import { boundedReport } from "./boundedReport.ts";

/** `$schema` URIs, without scheme and trailing "#", by the draft name the validator takes. */
const DIALECTS: Record<string, SchemaDraft> = {
  "//json-schema.org/draft/2020-12/schema": "2020-12",
  "//json-schema.org/draft/2019-09/schema": "2019-09",
  "//json-schema.org/draft-07/schema": "7",
  "//json-schema.org/draft-04/schema": "4",
};
const DEFAULT_DIALECT: SchemaDraft = "2020-12";

/** Error lines a message shows; the rest are counted. Bounds the message a client can provoke. */
export const MAX_REPORTED_ERRORS = 10;

/**
 * Compiles `schema` once; the returned check gives `undefined` for a valid value, or a readable
 * message (one `✖` line per failed keyword, like `z.prettifyError`, at most
 * `MAX_REPORTED_ERRORS` of them, then "… and N more errors").
 *
 * @param what Names the schema in startup errors, e.g. `Tool lookup's input`.
 * @throws TypeError at startup for an unknown `$schema` dialect.
 *
 * @example
 * const check = jsonSchemaValidator({ type: "object", required: ["a"] }, "Tool t's input");
 * check({}); // '✖ Instance does not have required property "a".\n  → at # (schema #/required)'
 */
export function jsonSchemaValidator(schema: Record<string, unknown>, what: string): (value: unknown) => string | undefined {
  const draft = dialect(schema.$schema, what);
  // The validator annotates the schema objects it is given; a clone keeps the advertised one untouched.
  const validator = new Validator(structuredClone(schema) as Schema, draft, false);
  return (value) => {
    const { valid, errors } = validator.validate(value);
    return valid ? undefined : describeErrors(errors);
  };
}

function dialect(uri: unknown, what: string): SchemaDraft {
  if (uri === undefined) return DEFAULT_DIALECT;
  const draft = typeof uri === "string" ? DIALECTS[uri.replace(/^https?:/, "").replace(/#$/, "")] : undefined;
  if (!draft) {
    throw new TypeError(`${what} has "$schema": ${JSON.stringify(uri)}; supported are JSON Schema 2020-12 (the default), 2019-09, draft-07 and draft-04`);
  }
  return draft;
}

/**
 * The validator reports every failing keyword, parents included ("A subschema had errors.").
 * Keep the most specific ones: drop a failure whose schema location encloses another failure,
 * except `anyOf`/`oneOf`, which say that the alternatives below are alternatives; drop `false`
 * (it repeats its parent). Distinct lines only, the first `MAX_REPORTED_ERRORS` of them (each cut
 * to `MAX_ENTRY_CHARS`: a key may be a megabyte long), then a count: the client chooses how many
 * errors there are (one per extra key, say).
 *
 * Linear in the errors: enclosing locations are collected once in a set, not found by comparing
 * every pair of errors (16,000 extra keys took 3.7 s that way).
 */
function describeErrors(errors: OutputUnit[]): string {
  const enclosing = enclosingLocations(errors);
  const specific = errors.filter((e) => e.keyword !== "false" && (e.keyword === "anyOf" || e.keyword === "oneOf" || !enclosing.has(e.keywordLocation)));
  const lines = new Set((specific.length > 0 ? specific : errors).map((e) => `✖ ${e.error}\n  → at ${e.instanceLocation} (schema ${e.keywordLocation})`));
  return boundedReport([...lines].slice(0, MAX_REPORTED_ERRORS), lines.size, ["error", "errors"]);
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
